import { StrictMode, type CSSProperties } from 'react';
import { createRoot } from 'react-dom/client';
import type { PublicWidget } from '@shared/contracts/widgets';
import { loadMarkdown } from '../../chat';
import { WidgetFrame } from './WidgetFrame';
import '../../../styles.css';
import './widget-frame.css';

/** The widget's id is the last part of the page's path (/widget/{id}). */
const widgetId = decodeURIComponent(location.pathname.split('/').filter(Boolean).pop() ?? '');
const root = createRoot(document.getElementById('root')!);

async function start(): Promise<void> {
  const response = await fetch(`/api/public/widgets/${encodeURIComponent(widgetId)}`, { credentials: 'omit', headers: { Accept: 'application/json' } });
  const body = (await response.json().catch(() => undefined)) as { data?: PublicWidget; error?: { message?: string } } | undefined;
  if (!response.ok || !body?.data) {
    root.render(
      <main className="widget-failure" role="alert">
        <p>{body?.error?.message ?? 'This chat is not available.'}</p>
      </main>,
    );
    return;
  }
  const widget = body.data;
  document.documentElement.style.setProperty('--widget-color', widget.color);
  document.documentElement.style.setProperty('--widget-text', widget.textColor);
  root.render(
    <StrictMode>
      <div className="widget-root" style={{ '--accent': widget.color } as CSSProperties}>
        <WidgetFrame widget={widget} />
      </div>
    </StrictMode>,
  );
  // Fetched once the chat shows, so the greeting and first reply are formatted without delaying it.
  loadMarkdown().catch(() => undefined);
}

void start();
