/**
 * The conversation history a prompt gets: the newest messages, by count and by total size. The
 * same cut applies to the server's copy of a conversation and to the history a stateless API
 * caller sends.
 */
export const MAX_HISTORY_ENTRIES = 20;
export const MAX_HISTORY_CHARS = 16000;
const MAX_HISTORY_ENTRY_CHARS = 4000;

export type HistoryEntry = { role: 'user' | 'assistant'; content: string };

export function trimHistory(entries: readonly HistoryEntry[]): HistoryEntry[] {
  const kept: HistoryEntry[] = [];
  let size = 0;
  for (let i = entries.length - 1; i >= 0 && kept.length < MAX_HISTORY_ENTRIES; i -= 1) {
    const content = entries[i].content.slice(0, MAX_HISTORY_ENTRY_CHARS);
    if (content.trim() === '') continue;
    if (size + content.length > MAX_HISTORY_CHARS) break;
    size += content.length;
    kept.unshift({ role: entries[i].role, content });
  }
  return kept;
}
