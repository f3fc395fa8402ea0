/*
 * Sets <html lang dir> from the chat page's remembered language (local storage, see
 * src/features/chat/state/preferences.ts) before the first paint, so an Arabic reload is right to
 * left from its first frame; the app sets them again once it runs. A classic blocking script from
 * our own origin (no inline script: it keeps working under a Content-Security-Policy without
 * 'unsafe-inline'). The console (/admin) stays English. The language list is checked against
 * src/shared/catalog/languages.ts by document-language.test.ts.
 */
(function () {
  var LANGUAGES = ['en', 'es', 'fr', 'de', 'zh', 'ja', 'ko', 'hi', 'pt', 'it', 'ar'];
  var RIGHT_TO_LEFT = ['ar'];
  try {
    if (location.pathname.indexOf('/admin') === 0) return;
    var saved = JSON.parse(localStorage.getItem('sa.chat.preferences') || 'null');
    var code = saved && typeof saved.language === 'string' ? saved.language.trim().toLowerCase() : '';
    if (LANGUAGES.indexOf(code) < 0) return;
    document.documentElement.lang = code;
    document.documentElement.dir = RIGHT_TO_LEFT.indexOf(code) < 0 ? 'ltr' : 'rtl';
  } catch (e) {
    // No storage (private mode, disabled) or a damaged entry: the page starts in English.
  }
})();
