import type { VerticalId } from '@shared/catalog/verticals';
import type { JurisdictionChoice } from '../api/chat-payload';

/**
 * What the chat page remembers in this browser (local storage, not the server): the chosen
 * language, tab and jurisdiction, so a reload shows the page as the visitor left it. These are
 * preferences, not personal data; the conversations themselves are on the server.
 */
export interface ChatPreferences {
  language?: string;
  /**
   * True when `language` was not picked by the visitor but followed from what they wrote: kept
   * across reloads, yet the next question surely written in another language moves it again.
   */
  languageDetected?: boolean;
  vertical?: VerticalId;
  jurisdiction?: JurisdictionChoice | null;
}

const KEY = 'sa.chat.preferences';

export function readPreferences(): ChatPreferences {
  try {
    const raw = globalThis.localStorage?.getItem(KEY);
    const parsed = raw ? (JSON.parse(raw) as unknown) : undefined;
    return parsed && typeof parsed === 'object' ? (parsed as ChatPreferences) : {};
  } catch {
    return {};
  }
}

export function savePreferences(change: ChatPreferences): void {
  try {
    globalThis.localStorage?.setItem(KEY, JSON.stringify({ ...readPreferences(), ...change }));
  } catch {
    // Storage full or disabled (private mode): the page still works, it just forgets.
  }
}
