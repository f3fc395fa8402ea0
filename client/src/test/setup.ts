import '@testing-library/jest-dom/vitest';
import { cleanup } from '@testing-library/react';
import { afterEach } from 'vitest';
import { loadMarkdown } from '../features/chat/components/LazyMarkdown';

// The chat loads its Markdown renderer on demand; loaded here, replies render formatted at once.
await loadMarkdown();

afterEach(() => {
  cleanup();
  // The chat page remembers its tab, language and jurisdiction here.
  localStorage.clear();
});
