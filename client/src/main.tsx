import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/App';
import { loadMarkdown } from './features/chat';
import './styles.css';

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);

// Fetched while the page settles, so the first reply is already formatted.
loadMarkdown().catch(() => undefined);
