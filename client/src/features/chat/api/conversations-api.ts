import type { NewChatRequest, VisitorConversation, VisitorConversations } from '@shared/contracts/conversations';
import type { JurisdictionChoice } from './chat-payload';

/**
 * The visitor's conversations on the server (GET/POST/DELETE /api/visitor/conversations). The
 * visitor cookie says whose; the page never sees it. `fetchImpl` is the page's fetch (replaceable
 * in tests, like the connection's).
 */
async function call<T>(fetchImpl: typeof fetch, path: string, init: RequestInit = {}): Promise<T> {
  const response = await fetchImpl(path, {
    credentials: 'same-origin',
    ...init,
    headers: { Accept: 'application/json', ...(init.body ? { 'Content-Type': 'application/json' } : {}), ...init.headers },
  });
  const body = (await response.json().catch(() => undefined)) as { success?: boolean; data?: T; error?: { message?: string } } | undefined;
  if (!response.ok || !body?.success) throw new Error(body?.error?.message ?? `Request failed (${response.status})`);
  return body.data as T;
}

export async function loadConversations(fetchImpl: typeof fetch): Promise<VisitorConversation[]> {
  return (await call<VisitorConversations>(fetchImpl, '/api/visitor/conversations')).conversations;
}

/** "New chat": the server closes the conversation of this vertical (and jurisdiction). */
export async function startNewChat(fetchImpl: typeof fetch, vertical: NewChatRequest['vertical'], jurisdiction: JurisdictionChoice | null): Promise<void> {
  const body: Record<string, string> = { vertical };
  if (vertical === 'legal' && jurisdiction) {
    body.jurisdiction = jurisdiction.code;
    if (jurisdiction.subRegion) body.subJurisdiction = jurisdiction.subRegion;
  }
  await call(fetchImpl, '/api/visitor/conversations/new', { method: 'POST', body: JSON.stringify(body) });
}

export async function deleteConversations(fetchImpl: typeof fetch): Promise<void> {
  await call(fetchImpl, '/api/visitor/conversations', { method: 'DELETE' });
}
