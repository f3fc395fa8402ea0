/**
 * Reply languages offered in the chat panel's dropdown, and the speech-recognition locale for
 * each. The client sends the language *name* (preferredLanguage) with each message; the server
 * uses it to tell the model which language to answer in.
 */

export interface Language {
  /** ISO 639-1 code. */
  code: string;
  /** English name; this is what the client sends as preferredLanguage. */
  name: string;
  /** The language's own name for itself, shown in the dropdown. */
  nativeName: string;
  /** BCP 47 locale for the browser's speech recognition. */
  speechLocale: string;
  /** Written right to left. */
  rtl?: boolean;
}

/** Locale used when a code is unknown or missing: speech recognition defaults to en-US. */
export const DEFAULT_SPEECH_LOCALE = 'en-US';

/**
 * Speech-recognition locale by language code. Covers the offered languages plus a few that the
 * recogniser supports but the dropdown does not offer (ru, nl, sv, pl).
 */
export const SPEECH_LOCALES: Readonly<Record<string, string>> = Object.freeze({
  en: 'en-US',
  es: 'es-ES',
  fr: 'fr-FR',
  de: 'de-DE',
  zh: 'zh-CN',
  ja: 'ja-JP',
  ko: 'ko-KR',
  hi: 'hi-IN',
  pt: 'pt-BR',
  it: 'it-IT',
  ar: 'ar-SA',
  ru: 'ru-RU',
  nl: 'nl-NL',
  sv: 'sv-SE',
  pl: 'pl-PL',
});

/** The 11 offered languages, in dropdown order. */
export const LANGUAGES: readonly Language[] = Object.freeze([
  { code: 'en', name: 'English', nativeName: 'English', speechLocale: 'en-US' },
  { code: 'es', name: 'Spanish', nativeName: 'Español', speechLocale: 'es-ES' },
  { code: 'fr', name: 'French', nativeName: 'Français', speechLocale: 'fr-FR' },
  { code: 'de', name: 'German', nativeName: 'Deutsch', speechLocale: 'de-DE' },
  { code: 'zh', name: 'Chinese', nativeName: '中文', speechLocale: 'zh-CN' },
  { code: 'ja', name: 'Japanese', nativeName: '日本語', speechLocale: 'ja-JP' },
  { code: 'ko', name: 'Korean', nativeName: '한국어', speechLocale: 'ko-KR' },
  { code: 'hi', name: 'Hindi', nativeName: 'हिन्दी', speechLocale: 'hi-IN' },
  { code: 'pt', name: 'Portuguese', nativeName: 'Português', speechLocale: 'pt-BR' },
  { code: 'it', name: 'Italian', nativeName: 'Italiano', speechLocale: 'it-IT' },
  { code: 'ar', name: 'Arabic', nativeName: 'العربية', speechLocale: 'ar-SA', rtl: true },
] satisfies Language[]);

/** The language replies default to. */
export const DEFAULT_LANGUAGE: Language = getLanguageByCode('en') as Language;

export function getLanguageByCode(code: string): Language | undefined {
  const wanted = code.trim().toLowerCase();
  return LANGUAGES.find((l) => l.code === wanted);
}

/** Finds an offered language by its English name, ignoring case and surrounding spaces. */
export function getLanguageByName(name: string): Language | undefined {
  const wanted = name.trim().toLowerCase();
  return LANGUAGES.find((l) => l.name.toLowerCase() === wanted);
}

/** Speech-recognition locale for a language code; 'en-US' when the code is unknown. */
export function speechLocaleFor(code: string | undefined | null): string {
  if (!code) return DEFAULT_SPEECH_LOCALE;
  const key = code.trim().toLowerCase();
  const locale = Object.prototype.hasOwnProperty.call(SPEECH_LOCALES, key)
    ? SPEECH_LOCALES[key]
    : undefined;
  return locale ?? DEFAULT_SPEECH_LOCALE;
}
