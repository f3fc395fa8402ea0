import { createContext, useContext, useEffect, useReducer, type ReactNode } from 'react';
import { en, type ChatStrings } from './en';

export type { ChatStrings } from './en';
export { en } from './en';

/**
 * The chat page's dictionaries other than English, loaded when a visitor picks the language (one
 * small file each): the page and the widget carry only English up front (the widget's 150 KB
 * budget). Until a dictionary has arrived, stringsFor answers English.
 */
const LOADERS: Readonly<Record<string, () => Promise<ChatStrings>>> = {
  es: () => import('./es').then((m) => m.es),
  fr: () => import('./fr').then((m) => m.fr),
  de: () => import('./de').then((m) => m.de),
  zh: () => import('./zh').then((m) => m.zh),
  ja: () => import('./ja').then((m) => m.ja),
  ko: () => import('./ko').then((m) => m.ko),
  hi: () => import('./hi').then((m) => m.hi),
  pt: () => import('./pt').then((m) => m.pt),
  it: () => import('./it').then((m) => m.it),
  ar: () => import('./ar').then((m) => m.ar),
};

/** The offered languages' codes (the catalog's LANGUAGES), English first. */
export const DICTIONARY_CODES: readonly string[] = ['en', ...Object.keys(LOADERS)];

const loaded = new Map<string, ChatStrings>([['en', en]]);
const loading = new Map<string, Promise<ChatStrings>>();

/** The dictionary of `code` once loaded (English for an unknown code). */
export function loadStrings(code: string): Promise<ChatStrings> {
  const ready = loaded.get(code);
  if (ready) return Promise.resolve(ready);
  const load = LOADERS[code];
  if (!load) return Promise.resolve(en);
  let pending = loading.get(code);
  if (!pending) {
    pending = load().then(
      (strings) => {
        loaded.set(code, strings);
        loading.delete(code);
        return strings;
      },
      (error: unknown) => {
        // A failed download (offline) is tried again on the next call; English meanwhile.
        loading.delete(code);
        throw error;
      },
    );
    loading.set(code, pending);
  }
  return pending;
}

/** Every dictionary (tests, and anything that lists them all). */
export async function loadAllStrings(): Promise<Readonly<Record<string, ChatStrings>>> {
  const all = await Promise.all(DICTIONARY_CODES.map(async (code) => [code, await loadStrings(code)] as const));
  return Object.fromEntries(all);
}

/** The texts of `code` if its dictionary is loaded, else English. */
export function stringsFor(code: string | undefined): ChatStrings {
  return (code && loaded.get(code)) || en;
}

/** The texts of `code`, loading its dictionary if needed: English until it arrives, then a re-render. */
export function useDictionary(code: string): ChatStrings {
  const [, arrived] = useReducer((n: number) => n + 1, 0);
  useEffect(() => {
    if (loaded.has(code)) return;
    let current = true;
    loadStrings(code).then(
      () => current && arrived(),
      () => undefined,
    );
    return () => {
      current = false;
    };
  }, [code]);
  return stringsFor(code);
}

const StringsContext = createContext<ChatStrings>(en);

/** Gives the chat page's components the texts of the chosen language. */
export function StringsProvider({ language, children }: { language: string; children: ReactNode }) {
  return <StringsContext.Provider value={useDictionary(language)}>{children}</StringsContext.Provider>;
}

/** The texts of the chat page in the visitor's language. */
export function useStrings(): ChatStrings {
  return useContext(StringsContext);
}
