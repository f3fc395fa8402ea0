/// <reference types="vite/client" />
import { afterEach, describe, expect, it } from 'vitest';
import { LANGUAGES } from '@shared/catalog/languages';
import SCRIPT from '../../../../public/document-language.js?raw';
import { savePreferences } from './preferences';

// SCRIPT: client/public/document-language.js, the blocking script that sets lang/dir before the app runs.

function runScript(): void {
  new Function(SCRIPT)();
}

describe('document-language.js (lang and dir before the first paint)', () => {
  afterEach(() => {
    localStorage.clear();
    document.documentElement.lang = 'en';
    document.documentElement.dir = 'ltr';
    window.history.pushState({}, '', '/');
  });

  it.each(LANGUAGES.map((l) => [l.code, l.rtl ? 'rtl' : 'ltr'] as const))('a remembered %s gives dir=%s (same list as the catalog)', (code, dir) => {
    document.documentElement.lang = 'xx';
    document.documentElement.dir = '';
    savePreferences({ language: code });
    runScript();
    expect(document.documentElement.lang).toBe(code);
    expect(document.documentElement.dir).toBe(dir);
  });

  it('leaves the page alone with nothing remembered, an unknown language, damaged storage, or on the console', () => {
    runScript();
    expect([document.documentElement.lang, document.documentElement.dir]).toEqual(['en', 'ltr']);
    savePreferences({ language: 'tlh' });
    runScript();
    expect([document.documentElement.lang, document.documentElement.dir]).toEqual(['en', 'ltr']);
    localStorage.setItem('sa.chat.preferences', '{not json');
    runScript();
    expect([document.documentElement.lang, document.documentElement.dir]).toEqual(['en', 'ltr']);
    savePreferences({ language: 'ar' });
    window.history.pushState({}, '', '/admin');
    runScript();
    expect([document.documentElement.lang, document.documentElement.dir]).toEqual(['en', 'ltr']);
  });
});
