import '@testing-library/jest-dom/vitest';
import { cleanup } from '@testing-library/react';
import { afterEach } from 'vitest';
import { loadMarkdown } from '../features/chat/components/LazyMarkdown';
import { loadAllStrings } from '../features/chat/i18n';

// The chat loads its Markdown renderer and its dictionaries other than English on demand; loaded
// here, replies render formatted and a language switch shows its texts at once.
await loadMarkdown();
await loadAllStrings();

afterEach(() => {
  cleanup();
  // The chat page remembers its tab, language and jurisdiction here.
  localStorage.clear();
});
