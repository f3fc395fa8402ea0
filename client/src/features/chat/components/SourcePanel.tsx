import { useEffect, useMemo, useRef, useState } from 'react';
import type { ReplySource } from '@shared/contracts/chat';
import type { PublicKnowledgeItem } from '@shared/contracts/knowledge';
import { Modal } from '../../../components/Modal';
import { useStrings } from '../i18n';
import { Markdown } from './LazyMarkdown';
import { splitAtPassage } from './source-passage';

type Loaded = { state: 'loading' } | { state: 'failed' } | { state: 'ready'; item: PublicKnowledgeItem };

/** Reads a source's text (GET /api/public/knowledge/{id}). */
async function loadSource(fetchImpl: typeof fetch, id: string): Promise<PublicKnowledgeItem> {
  const response = await fetchImpl(`/api/public/knowledge/${encodeURIComponent(id)}`, { headers: { Accept: 'application/json' }, credentials: 'same-origin' });
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  return ((await response.json()) as { data: PublicKnowledgeItem }).data;
}

/**
 * A reply's source, opened from its chip: the knowledge item's text in a side panel (a dialog:
 * focus inside, Escape closes, focus goes back to the chip), at the passage the reply cites: that
 * passage is highlighted and scrolled into view. A passage no longer in the item (edited since, or
 * from one of its attachments) is shown on its own above the item.
 */
export function SourcePanel({ source, fetch: fetchImpl, onClose }: { source: ReplySource | null; fetch: typeof fetch; onClose(): void }) {
  const t = useStrings().source;
  const [loaded, setLoaded] = useState<Loaded>({ state: 'loading' });
  const id = source?.id;
  const passageRef = useRef<HTMLElement>(null);
  const content = loaded.state === 'ready' ? loaded.item.content : null;
  // An imported web page: its address, which opens the page (only http and https are links).
  const pageUrl = (loaded.state === 'ready' ? loaded.item.url : null) ?? source?.url ?? null;
  const link = pageUrl && /^https?:\/\//i.test(pageUrl) ? pageUrl : null;
  const split = useMemo(() => (content !== null && source?.passage ? splitAtPassage(content, source.passage) : null), [content, source?.passage]);

  useEffect(() => {
    if (!id) return;
    let cancelled = false;
    setLoaded({ state: 'loading' });
    loadSource(fetchImpl, id).then(
      (item) => !cancelled && setLoaded({ state: 'ready', item }),
      (error: unknown) => {
        console.warn('Could not open the source', error);
        if (!cancelled) setLoaded({ state: 'failed' });
      },
    );
    return () => {
      cancelled = true;
    };
  }, [id, fetchImpl]);

  useEffect(() => {
    if (content !== null) passageRef.current?.scrollIntoView?.({ block: 'start' });
  }, [content, split]);

  return (
    <Modal
      open={source !== null}
      onClose={onClose}
      title={loaded.state === 'ready' ? loaded.item.title : (source?.title ?? t.title)}
      description={t.title}
      closeLabel={t.close}
      className="source-panel"
      placement="side"
    >
      {loaded.state === 'loading' && (
        <p className="source-status" role="status">
          {t.loading}
        </p>
      )}
      {loaded.state === 'failed' && (
        <p className="source-status is-error" role="alert">
          {t.failed}
        </p>
      )}
      {link && (
        <p className="source-url">
          <a href={link} target="_blank" rel="noopener noreferrer" dir="ltr">
            {link}
          </a>
        </p>
      )}
      {loaded.state === 'ready' && (
        <div className="source-content markdown" dir="auto">
          {split ? (
            <>
              {split.before && <Markdown text={split.before} />}
              <section className="source-passage" aria-label={t.passage} ref={passageRef}>
                <Markdown text={split.passage} />
              </section>
              {split.after && <Markdown text={split.after} />}
            </>
          ) : (
            <>
              {source?.passage && (
                <section className="source-passage" aria-label={t.passage} ref={passageRef}>
                  <Markdown text={source.passage} />
                </section>
              )}
              <Markdown text={loaded.item.content} />
            </>
          )}
        </div>
      )}
    </Modal>
  );
}
