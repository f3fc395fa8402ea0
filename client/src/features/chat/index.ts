/**
 * The chat feature's public surface: the chat page (the widget frame hosts it), its socket type,
 * and the Markdown renderer the console's transcripts share. Other features import chat only from
 * here (eslint.config.mjs enforces it).
 */
export { default as ChatPage } from './ChatPage';
export type { ChatPageProps } from './ChatPage';
export type { ChatSocket } from './api/chat-connection';
export { Markdown } from './components/Markdown';
