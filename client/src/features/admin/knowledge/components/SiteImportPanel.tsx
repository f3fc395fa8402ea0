import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Globe } from 'lucide-react';
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { SITE_IMPORT_LIMITS } from '@shared/contracts/knowledge-import';
import { SITE_IMPORTS_QUERY_KEY, siteImportApi, type SiteImport } from '../api/knowledge-api';
import { KNOWLEDGE } from '../strings';

const S = {
  title: 'Import website',
  url: 'Website or sitemap address',
  placeholder: 'https://help.example.com/ or …/sitemap.xml',
  vertical: 'Import into',
  pages: 'Page cap',
  depth: 'Depth',
  start: 'Import',
  starting: 'Checking…',
  cancel: 'Cancel',
  resume: 'Resume',
  resync: 'Re-sync',
  progress: (i: SiteImport) => `${i.pagesDone} of ${i.pagesTotal} pages`,
  counts: (i: SiteImport) => `${i.added} added, ${i.updated} updated, ${i.removed} removed, ${i.unchanged} unchanged`,
  problems: (n: number) => `${n} page${n === 1 ? '' : 's'} not imported`,
  status: {
    queued: 'Queued',
    running: 'Importing',
    completed: 'Done',
    cancelled: 'Cancelled',
    failed: 'Failed',
  } as Record<SiteImport['status'], string>,
  resyncing: 'Re-syncing',
};

const active = (i: SiteImport) => i.status === 'queued' || i.status === 'running';

/**
 * Knowledge tab: "Import website". A start page or sitemap address, the vertical, page cap and
 * depth; below, the latest imports with live progress (polled every second while one runs), the
 * pages that were not imported and why, and Cancel, Resume and Re-sync.
 */
export function SiteImportPanel({ defaultVertical, onChanged }: { defaultVertical: string; onChanged(): void }) {
  const titleId = useId();
  const queryClient = useQueryClient();
  const verticals = Object.keys(KNOWLEDGE.verticals);
  const [url, setUrl] = useState('');
  const [vertical, setVertical] = useState(verticals.includes(defaultVertical) ? defaultVertical : verticals[0]);
  const [maxPages, setMaxPages] = useState(String(SITE_IMPORT_LIMITS.defaultPages));
  const [maxDepth, setMaxDepth] = useState(String(SITE_IMPORT_LIMITS.defaultDepth));
  const [problem, setProblem] = useState<string | null>(null);

  const imports = useQuery({
    queryKey: SITE_IMPORTS_QUERY_KEY,
    queryFn: ({ signal }) => siteImportApi.list(signal),
    refetchInterval: (query) => (query.state.data?.some(active) ? 1000 : 15000),
  });
  // Items appear in the list as pages are imported (added, updated or removed).
  const changes = (imports.data ?? []).reduce((sum, i) => sum + i.added + i.updated + i.removed, 0);
  const lastChanges = useRef<number | null>(null);
  useEffect(() => {
    if (lastChanges.current !== null && lastChanges.current !== changes) onChanged();
    lastChanges.current = changes;
  }, [changes, onChanged]);

  const refresh = () => queryClient.invalidateQueries({ queryKey: SITE_IMPORTS_QUERY_KEY });
  const start = useMutation({
    mutationFn: () => siteImportApi.start({ url: url.trim(), vertical: vertical as never, maxPages: Number(maxPages), maxDepth: Number(maxDepth) }),
    onSuccess: () => {
      setProblem(null);
      setUrl('');
      void refresh();
    },
    onError: (error: Error) => setProblem(error.message),
  });
  const act = useMutation({
    mutationFn: ({ id, action }: { id: string; action: 'cancel' | 'resume' | 'resync' }) => siteImportApi.act(id, action),
    onSettled: () => void refresh(),
    onError: (error: Error) => setProblem(error.message),
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    start.mutate();
  };

  return (
    <section className="kb-quick kb-site" aria-labelledby={titleId}>
      <h3 id={titleId} className="kb-quick-title">
        <Globe size={16} aria-hidden="true" /> {S.title}
      </h3>
      <form className="kb-site-form" onSubmit={submit}>
        <label className="kb-site-field is-wide">
          <span>{S.url}</span>
          <input type="url" value={url} placeholder={S.placeholder} onChange={(e) => setUrl(e.target.value)} required />
        </label>
        <label className="kb-site-field">
          <span>{S.vertical}</span>
          <select value={vertical} onChange={(e) => setVertical(e.target.value)}>
            {verticals.map((id) => (
              <option key={id} value={id}>
                {KNOWLEDGE.verticals[id]}
              </option>
            ))}
          </select>
        </label>
        <label className="kb-site-field is-narrow">
          <span>{S.pages}</span>
          <input type="number" min={1} max={SITE_IMPORT_LIMITS.maxPages} value={maxPages} onChange={(e) => setMaxPages(e.target.value)} />
        </label>
        <label className="kb-site-field is-narrow">
          <span>{S.depth}</span>
          <input type="number" min={0} max={SITE_IMPORT_LIMITS.maxDepth} value={maxDepth} onChange={(e) => setMaxDepth(e.target.value)} />
        </label>
        <button type="submit" className="kb-button is-primary" disabled={start.isPending || url.trim() === ''}>
          {start.isPending ? S.starting : S.start}
        </button>
      </form>
      {problem && (
        <p className="kb-site-problem" role="alert">
          {problem}
        </p>
      )}
      {(imports.data ?? []).length > 0 && (
        <ul className="kb-site-list" aria-label="Website imports">
          {(imports.data ?? []).slice(0, 5).map((i) => (
            <li key={i.id} className={`kb-site-item is-${i.status}`}>
              <div className="kb-site-head">
                <span className="kb-site-url" title={i.url}>
                  {i.url}
                </span>
                <span className="kb-site-status">{i.run === 'resync' && active(i) ? S.resyncing : S.status[i.status]}</span>
              </div>
              <div className="kb-progress" role="status" aria-live="polite">
                <span>{S.progress(i)}</span>
                <progress max={Math.max(1, i.pagesTotal)} value={i.pagesDone} aria-label={`${i.url}: ${S.progress(i)}`} />
              </div>
              <p className="kb-site-counts">{S.counts(i)}</p>
              {i.notes.map((note) => (
                <p key={note} className="kb-site-note">
                  {note}
                </p>
              ))}
              {i.errors.length > 0 && (
                <details className="kb-site-errors">
                  <summary>{S.problems(i.errors.length)}</summary>
                  <ul>
                    {i.errors.map((e, n) => (
                      <li key={`${e.url}-${n}`}>
                        <span className="kb-site-url">{e.url}</span>: {e.message}
                      </li>
                    ))}
                  </ul>
                </details>
              )}
              <div className="kb-site-actions">
                {active(i) && (
                  <button type="button" className="kb-button" onClick={() => act.mutate({ id: i.id, action: 'cancel' })}>
                    {S.cancel}
                  </button>
                )}
                {(i.status === 'cancelled' || i.status === 'failed') && (
                  <button type="button" className="kb-button" onClick={() => act.mutate({ id: i.id, action: 'resume' })}>
                    {S.resume}
                  </button>
                )}
                {!active(i) && (
                  <button type="button" className="kb-button" onClick={() => act.mutate({ id: i.id, action: 'resync' })}>
                    {S.resync}
                  </button>
                )}
              </div>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
