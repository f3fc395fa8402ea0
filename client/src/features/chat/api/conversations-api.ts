import type { NewChatRequest, VisitorConversation, VisitorConversations } from '@shared/contracts/conversations';
import type { HandoffRequestResult } from '@shared/contracts/handoff';
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

/** "Talk to a person": hands the visitor's conversation of this vertical to a person (POST /api/visitor/conversations/handoff). */
export async function requestHandoff(
  fetchImpl: typeof fetch,
  request: { vertical: NewChatRequest['vertical']; jurisdiction: JurisdictionChoice | null; language: string; email?: string; message?: string },
): Promise<HandoffRequestResult> {
  const body: Record<string, string> = { vertical: request.vertical, language: request.language };
  if (request.vertical === 'legal' && request.jurisdiction) {
    body.jurisdiction = request.jurisdiction.code;
    if (request.jurisdiction.subRegion) body.subJurisdiction = request.jurisdiction.subRegion;
  }
  if (request.email) body.email = request.email;
  if (request.message) body.message = request.message;
  try {
    body.timeZone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  } catch {
    // No time zone: the server writes the next opening in its own.
  }
  return call<HandoffRequestResult>(fetchImpl, '/api/visitor/conversations/handoff', { method: 'POST', body: JSON.stringify(body) });
}
