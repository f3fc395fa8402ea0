import { Globe } from 'lucide-react';
import { LANGUAGES, type Language } from '@shared/catalog/languages';
import { useStrings } from '../i18n';

/** The page's language (interface and replies): the 11 offered languages, shown by their own names. */
export function LanguageSelect({ value, onChange }: { value: Language; onChange(language: Language): void }) {
  const t = useStrings();
  return (
    <label className="language-select">
      <Globe aria-hidden="true" size={16} />
      <span className="sr-only">{t.chat.language}</span>
      <select
        value={value.code}
        onChange={(event) => {
          const language = LANGUAGES.find((l) => l.code === event.target.value);
          if (language) onChange(language);
        }}
      >
        {LANGUAGES.map((language) => (
          <option key={language.code} value={language.code} lang={language.code} dir={language.rtl ? 'rtl' : 'ltr'}>
            {language.nativeName === language.name ? language.name : `${language.nativeName} (${language.name})`}
          </option>
        ))}
      </select>
    </label>
  );
}
