/**
 * What the widget's loader, its iframe and the server say to each other outside the JSON bodies:
 * the headers that name the widget and the visitor, and the typed messages between the host page
 * and the iframe. No zod here, so the loader and the iframe page load none (widgets.ts re-exports
 * all of it for the server).
 */

/** The header and socket auth fields that carry the widget and the visitor token. */
export const WIDGET_HEADER = 'x-widget-id';
export const VISITOR_TOKEN_HEADER = 'x-visitor-token';

/** Every message carries this tag, so other scripts' messages are told apart at once. */
export const WIDGET_MESSAGE_SOURCE = 'support-assistant-widget';

export interface WidgetIdentity {
  id: string;
  name?: string;
  email?: string;
  signature?: string;
}

/** From the loader (host page) to the iframe. */
export type HostToFrameMessage =
  | { source: typeof WIDGET_MESSAGE_SOURCE; type: 'identify'; identity: WidgetIdentity }
  | { source: typeof WIDGET_MESSAGE_SOURCE; type: 'reset' }
  | { source: typeof WIDGET_MESSAGE_SOURCE; type: 'opened' };

/** From the iframe to the loader. */
export type FrameToHostMessage =
  | { source: typeof WIDGET_MESSAGE_SOURCE; type: 'ready' }
  | { source: typeof WIDGET_MESSAGE_SOURCE; type: 'close' }
  | { source: typeof WIDGET_MESSAGE_SOURCE; type: 'message'; message: { role: 'visitor' | 'assistant'; text: string } };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/** A host-to-frame message, or null for anything else (checked field by field: it crosses origins). */
export function parseHostMessage(data: unknown): HostToFrameMessage | null {
  if (!isRecord(data) || data.source !== WIDGET_MESSAGE_SOURCE) return null;
  if (data.type === 'reset' || data.type === 'opened') return { source: WIDGET_MESSAGE_SOURCE, type: data.type };
  if (data.type !== 'identify' || !isRecord(data.identity)) return null;
  const { id, name, email, signature } = data.identity;
  if (typeof id !== 'string' || id.trim() === '' || id.length > 200) return null;
  const optionalText = (v: unknown, max: number) => (typeof v === 'string' && v.length <= max ? v : undefined);
  return {
    source: WIDGET_MESSAGE_SOURCE,
    type: 'identify',
    identity: { id, name: optionalText(name, 200), email: optionalText(email, 254), signature: optionalText(signature, 4000) },
  };
}
