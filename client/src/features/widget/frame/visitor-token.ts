import type { WidgetIdentity, WidgetVisitor } from '@shared/contracts/widgets';

/**
 * The visitor token of this widget, kept in the iframe's local storage (the assistant's origin),
 * so the conversation survives reloads and navigation on the host site. Where the browser
 * partitions or blocks third-party storage, reading or writing throws or finds nothing: the
 * visitor then starts a fresh conversation, never an error.
 */
const keyOf = (widgetId: string) => `sa.widget.${widgetId}.token`;

export function readToken(widgetId: string): string | undefined {
  try {
    return globalThis.localStorage?.getItem(keyOf(widgetId)) ?? undefined;
  } catch {
    return undefined;
  }
}

export function saveToken(widgetId: string, token: string | undefined): void {
  try {
    if (token) globalThis.localStorage?.setItem(keyOf(widgetId), token);
    else globalThis.localStorage?.removeItem(keyOf(widgetId));
  } catch {
    // Storage blocked: the token lives as long as the frame.
  }
}

/** Asks the server for the visitor token (keeping `token`, or the identity's own when its signature is valid). */
export async function fetchVisitorToken(widgetId: string, token: string | undefined, identity?: WidgetIdentity): Promise<WidgetVisitor> {
  const response = await fetch(`/api/public/widgets/${encodeURIComponent(widgetId)}/visitor`, {
    method: 'POST',
    credentials: 'omit',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
    body: JSON.stringify({ ...(token ? { token } : {}), ...(identity ? { identity } : {}) }),
  });
  const body = (await response.json().catch(() => undefined)) as { data?: WidgetVisitor; error?: { message?: string } } | undefined;
  if (!response.ok || !body?.data) throw new Error(body?.error?.message ?? `The chat could not start (${response.status})`);
  return body.data;
}
