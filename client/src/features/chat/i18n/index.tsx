import { createContext, useContext, type ReactNode } from 'react';
import { ar } from './ar';
import { de } from './de';
import { en, type ChatStrings } from './en';
import { es } from './es';
import { fr } from './fr';
import { hi } from './hi';
import { it } from './it';
import { ja } from './ja';
import { ko } from './ko';
import { pt } from './pt';
import { zh } from './zh';

export type { ChatStrings } from './en';
export { en } from './en';

/** The chat page's dictionaries, one per offered language (the catalog's LANGUAGES). */
export const DICTIONARIES: Readonly<Record<string, ChatStrings>> = { en, es, fr, de, zh, ja, ko, hi, pt, it, ar };

export function stringsFor(code: string | undefined): ChatStrings {
  return (code && DICTIONARIES[code]) || en;
}

const StringsContext = createContext<ChatStrings>(en);

/** Gives the chat page's components the texts of the chosen language. */
export function StringsProvider({ language, children }: { language: string; children: ReactNode }) {
  return <StringsContext.Provider value={stringsFor(language)}>{children}</StringsContext.Provider>;
}

/** The texts of the chat page in the visitor's language. */
export function useStrings(): ChatStrings {
  return useContext(StringsContext);
}
