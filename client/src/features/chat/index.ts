/**
 * The chat feature's public surface: the chat page (the widget frame hosts it), its socket type,
 * and the Markdown renderer the console's transcripts share. Other features import chat only from
 * here (eslint.config.mjs enforces it).
 */
export { default as ChatPage } from './ChatPage';
export type { ChatPageProps } from './ChatPage';
export type { ChatSocket } from './api/chat-connection';
// The renderer loads on demand (plain text until then): a static export would put it in every page.
export { loadMarkdown, Markdown } from './components/LazyMarkdown';
