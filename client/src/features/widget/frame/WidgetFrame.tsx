import { useCallback, useEffect, useMemo, useState } from 'react';
import { io } from 'socket.io-client';
import type { VerticalId } from '@shared/catalog/verticals';
import { parseHostMessage, WIDGET_HEADER, WIDGET_MESSAGE_SOURCE, VISITOR_TOKEN_HEADER, type FrameToHostMessage } from '@shared/contracts/widget-messages';
import type { PublicWidget } from '@shared/contracts/widgets';
import { SOCKET_RECONNECTION } from '@shared/contracts/socket-reconnection';
import { ChatPage, type ChatSocket } from '../../chat';
import { fetchVisitorToken, readToken, saveToken } from './visitor-token';

/**
 * The host page's origin: the only one this frame talks to. The browser already refused to show
 * the frame anywhere else (frame-ancestors), so the parent is one of the widget's allowed origins.
 */
export function hostOrigin(): string | undefined {
  const ancestors = (location as Location & { ancestorOrigins?: DOMStringList }).ancestorOrigins;
  if (ancestors && ancestors.length > 0) return ancestors[0];
  try {
    return document.referrer ? new URL(document.referrer).origin : undefined;
  } catch {
    return undefined;
  }
}

type WithoutSource<T> = T extends unknown ? Omit<T, 'source'> : never;

function tell(message: WithoutSource<FrameToHostMessage>): void {
  const origin = hostOrigin();
  if (window.parent !== window && origin) window.parent.postMessage({ source: WIDGET_MESSAGE_SOURCE, ...message }, origin);
}

/** The chat in the widget's iframe: a visitor token first, then the chat page with the widget's settings. */
export function WidgetFrame({ widget }: { widget: PublicWidget }) {
  const [token, setToken] = useState<string | null>(null);
  const [failure, setFailure] = useState<string | null>(null);

  useEffect(() => {
    fetchVisitorToken(widget.id, readToken(widget.id)).then(
      (visitor) => {
        saveToken(widget.id, visitor.token);
        setToken(visitor.token);
      },
      (error: Error) => setFailure(error.message),
    );
  }, [widget.id]);

  // identify() and reset() from the host page: only from the parent window, at its origin.
  useEffect(() => {
    const onMessage = (event: MessageEvent) => {
      if (event.source !== window.parent || event.origin !== hostOrigin()) return;
      const message = parseHostMessage(event.data);
      if (!message) return;
      if (message.type === 'identify') {
        fetchVisitorToken(widget.id, readToken(widget.id) ?? token ?? undefined, message.identity).then((visitor) => {
          // An identity that is not verified changes nothing (the server ignored it).
          if (!visitor.identified) return;
          saveToken(widget.id, visitor.token);
          setToken(visitor.token);
        }, () => undefined);
      } else if (message.type === 'reset') {
        saveToken(widget.id, undefined);
        fetchVisitorToken(widget.id, undefined).then((visitor) => {
          saveToken(widget.id, visitor.token);
          setToken(visitor.token);
        }, () => undefined);
      }
    };
    window.addEventListener('message', onMessage);
    tell({ type: 'ready' });
    return () => window.removeEventListener('message', onMessage);
  }, [widget.id, token]);

  const onClose = useCallback(() => tell({ type: 'close' }), []);
  const onActivity = useCallback((role: 'visitor' | 'assistant', text: string) => tell({ type: 'message', message: { role, text } }), []);

  if (failure) {
    return (
      <main className="widget-failure" role="alert">
        <p>{failure}</p>
      </main>
    );
  }
  if (!token) return <div className="widget-loading" aria-busy="true" />;
  // A new token (identify, reset) is another visitor: the chat starts again with their conversations.
  return <WidgetChat key={token} widget={widget} token={token} onClose={onClose} onActivity={onActivity} />;
}

function WidgetChat({ widget, token, onClose, onActivity }: { widget: PublicWidget; token: string; onClose(): void; onActivity(role: 'visitor' | 'assistant', text: string): void }) {
  // Every call names the widget and the visitor token (never in a URL); no cookie is needed.
  const fetchWithToken = useMemo<typeof fetch>(
    () => (input, init = {}) => {
      const headers = new Headers(init.headers);
      headers.set(WIDGET_HEADER, widget.id);
      headers.set(VISITOR_TOKEN_HEADER, token);
      return fetch(input, { ...init, headers, credentials: 'omit' });
    },
    [widget.id, token],
  );
  const createSocket = useCallback(
    (): ChatSocket =>
      io({
        transports: ['websocket', 'polling'],
        tryAllTransports: true,
        ...SOCKET_RECONNECTION,
        timeout: 10000,
        withCredentials: false,
        query: { widget: widget.id },
        auth: { widget: widget.id, visitorToken: token },
      }),
    [widget.id, token],
  );
  const mode = useMemo(
    () => ({
      verticals: widget.verticals as VerticalId[],
      defaultVertical: widget.defaultVertical as VerticalId,
      defaultLanguage: widget.defaultLanguage,
      greeting: widget.greeting,
      title: widget.launcherLabel,
      onClose,
      onActivity,
    }),
    [widget, onClose, onActivity],
  );
  return <ChatPage widget={mode} fetch={fetchWithToken} createSocket={createSocket} />;
}
