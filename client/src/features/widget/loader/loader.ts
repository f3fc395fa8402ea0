/**
 * The widget loader, /widget.js: one script tag on any site
 *
 *   <script src="https://ASSISTANT/widget.js" data-widget="WIDGET_ID" async></script>
 *
 * draws a launcher button (position, colour and label from the widget's settings) and, on its first
 * click or SupportAssistant.open(), an iframe with the chat from the assistant's origin. Plain
 * TypeScript with no dependencies (it must stay small: see .size-limit.json). Until the visitor
 * opens the widget nothing is stored and no cookie is set: the settings are read without
 * credentials, and the iframe (which keeps the visitor token) does not exist yet.
 *
 * Messages to the iframe go to the assistant's origin only; messages from it count only when they
 * come from that iframe's window at that origin, and are checked field by field.
 */
import { WIDGET_MESSAGE_SOURCE as SOURCE, type FrameToHostMessage, type HostToFrameMessage, type WidgetIdentity } from '@shared/contracts/widget-messages';
import type { PublicWidget } from '@shared/contracts/widgets';
const PHONE_MAX_WIDTH = 480;

type WidgetEvent = 'opened' | 'closed' | 'message';
type Listener = (detail?: unknown) => void;

export interface SupportAssistantApi {
  open(): void;
  close(): void;
  identify(identity: WidgetIdentity): void;
  reset(): void;
  on(event: WidgetEvent, listener: Listener): void;
  off(event: WidgetEvent, listener: Listener): void;
}

function frameMessage(data: unknown): FrameToHostMessage | null {
  if (typeof data !== 'object' || data === null) return null;
  const m = data as Record<string, unknown>;
  if (m.source !== SOURCE) return null;
  if (m.type === 'ready' || m.type === 'close') return { source: SOURCE, type: m.type };
  if (m.type !== 'message' || typeof m.message !== 'object' || m.message === null) return null;
  const { role, text } = m.message as Record<string, unknown>;
  if ((role !== 'visitor' && role !== 'assistant') || typeof text !== 'string') return null;
  return { source: SOURCE, type: 'message', message: { role, text } };
}

const CSS = `
.sa-launcher{position:fixed;bottom:20px;z-index:2147483000;display:inline-flex;align-items:center;gap:8px;border:0;border-radius:999px;padding:12px 18px;font:600 15px/1.2 system-ui,-apple-system,"Segoe UI",sans-serif;box-shadow:0 6px 24px rgba(0,0,0,.22);cursor:pointer}
.sa-launcher:focus-visible{outline:3px solid #fbbf24;outline-offset:3px}
.sa-launcher svg{width:20px;height:20px;flex:none}
.sa-panel{position:fixed;bottom:84px;z-index:2147483000;width:380px;height:min(620px,calc(100vh - 110px));border:0;border-radius:14px;box-shadow:0 12px 40px rgba(0,0,0,.25);background:#fff;overflow:hidden}
.sa-panel iframe{border:0;width:100%;height:100%;display:block}
.sa-right{right:20px}.sa-left{left:20px}
@media (max-width:${PHONE_MAX_WIDTH - 0.02}px){.sa-panel{inset:0;width:100%;height:100%;border-radius:0}.sa-open .sa-launcher{display:none}}
`;

const ICON = '<svg viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round" aria-hidden="true"><path d="M21 15a2 2 0 0 1-2 2H7l-4 4V5a2 2 0 0 1 2-2h14a2 2 0 0 1 2 2z"/></svg>';

function start(script: HTMLScriptElement): SupportAssistantApi {
  const widgetId = script.dataset.widget ?? '';
  const base = new URL(script.src, location.href);
  const assistantOrigin = base.origin;
  const listeners: Record<WidgetEvent, Set<Listener>> = { opened: new Set(), closed: new Set(), message: new Set() };
  const host = document.createElement('div');
  host.className = 'sa-widget';
  let settings: PublicWidget | null = null;
  let launcher: HTMLButtonElement | null = null;
  let panel: HTMLDivElement | null = null;
  let frame: HTMLIFrameElement | null = null;
  let ready = false;
  let open = false;
  let wantOpen = false;
  /** What the host asked before the iframe was ready: sent once it is (kept in memory only). */
  let pending: HostToFrameMessage[] = [];

  const emit = (event: WidgetEvent, detail?: unknown) => {
    for (const listener of listeners[event]) {
      try {
        listener(detail);
      } catch (error) {
        console.error(error);
      }
    }
  };

  const send = (message: HostToFrameMessage) => {
    if (frame?.contentWindow && ready) frame.contentWindow.postMessage(message, assistantOrigin);
    else pending.push(message);
  };

  const side = () => (settings?.position === 'bottom-left' ? 'sa-left' : 'sa-right');

  const drawLauncher = () => {
    if (!settings || launcher) return;
    const style = document.createElement('style');
    style.textContent = CSS;
    host.appendChild(style);
    launcher = document.createElement('button');
    launcher.type = 'button';
    launcher.className = `sa-launcher ${side()}`;
    launcher.style.background = settings.color;
    launcher.style.color = settings.textColor;
    launcher.innerHTML = ICON;
    launcher.appendChild(document.createTextNode(settings.launcherLabel));
    launcher.setAttribute('aria-expanded', 'false');
    launcher.addEventListener('click', () => (open ? api.close() : api.open()));
    host.appendChild(launcher);
  };

  const onMessage = (event: MessageEvent) => {
    if (!frame || event.source !== frame.contentWindow || event.origin !== assistantOrigin) return;
    const message = frameMessage(event.data);
    if (!message) return;
    if (message.type === 'ready') {
      ready = true;
      const queued = pending;
      pending = [];
      for (const m of queued) frame.contentWindow?.postMessage(m, assistantOrigin);
      if (open) frame.contentWindow?.postMessage({ source: SOURCE, type: 'opened' }, assistantOrigin);
    } else if (message.type === 'close') api.close();
    else emit('message', message.message);
  };

  const api: SupportAssistantApi = {
    open() {
      wantOpen = true;
      if (open) return;
      if (!panel) {
        panel = document.createElement('div');
        panel.className = `sa-panel ${side()}`;
        panel.setAttribute('role', 'dialog');
        panel.setAttribute('aria-label', settings?.launcherLabel ?? 'Support chat');
        frame = document.createElement('iframe');
        frame.title = settings?.launcherLabel ?? 'Support chat';
        frame.src = `${assistantOrigin}/widget/${encodeURIComponent(widgetId)}`;
        frame.allow = 'microphone';
        frame.referrerPolicy = 'origin';
        panel.appendChild(frame);
        host.appendChild(panel);
        window.addEventListener('message', onMessage);
      }
      panel.hidden = false;
      open = true;
      host.classList.add('sa-open');
      launcher?.setAttribute('aria-expanded', 'true');
      if (ready) frame?.contentWindow?.postMessage({ source: SOURCE, type: 'opened' }, assistantOrigin);
      frame?.focus();
      emit('opened');
    },
    close() {
      wantOpen = false;
      if (!open || !panel) return;
      panel.hidden = true;
      open = false;
      host.classList.remove('sa-open');
      launcher?.setAttribute('aria-expanded', 'false');
      launcher?.focus();
      emit('closed');
    },
    identify(identity: WidgetIdentity) {
      if (!identity || typeof identity.id !== 'string') return;
      send({ source: SOURCE, type: 'identify', identity: { id: identity.id, name: identity.name, email: identity.email, signature: identity.signature } });
    },
    reset() {
      send({ source: SOURCE, type: 'reset' });
    },
    on(event, listener) {
      listeners[event]?.add(listener);
    },
    off(event, listener) {
      listeners[event]?.delete(listener);
    },
  };

  const attach = () => document.body.appendChild(host);
  if (document.body) attach();
  else document.addEventListener('DOMContentLoaded', attach);

  fetch(`${assistantOrigin}/api/public/widgets/${encodeURIComponent(widgetId)}`, { credentials: 'omit', headers: { Accept: 'application/json' } })
    .then(async (response) => {
      const body = (await response.json().catch(() => undefined)) as { data?: PublicWidget; error?: { message?: string } } | undefined;
      if (!response.ok || !body?.data) throw new Error(body?.error?.message ?? `HTTP ${response.status}`);
      settings = body.data;
      drawLauncher();
      if (wantOpen && panel) {
        panel.className = `sa-panel ${side()}`;
      }
    })
    .catch((error: Error) => console.warn(`Support assistant widget "${widgetId}" is not available: ${error.message}`));

  return api;
}

const current = document.currentScript as HTMLScriptElement | null;
const script = current ?? document.querySelector<HTMLScriptElement>('script[data-widget][src*="widget.js"]');
if (script && !(window as { SupportAssistant?: SupportAssistantApi }).SupportAssistant) {
  (window as { SupportAssistant?: SupportAssistantApi }).SupportAssistant = start(script);
}
