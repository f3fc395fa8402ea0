import { ENABLED_VERTICAL_IDS } from '@shared/catalog/verticals';
import type { KnowledgeGap } from '@shared/contracts/conversations';
import { CheckCircle2, Plus, RotateCcw } from 'lucide-react';
import { useState } from 'react';
import { useConsoleNavigation } from '../../console-navigation';
import { formatWhen, verticalName } from '../format';
import { useKnowledgeGaps, useSetGapStatus } from '../hooks/useConversations';
import { CONVERSATIONS } from '../strings';
import { useAuth } from '../../../auth';
import { can } from '@shared/contracts/roles';

const G = CONVERSATIONS.gaps;

/** `writable`: the member may act on gaps (create an item from one, resolve, reopen); others read them. */
function GapCard({ gap, writable }: { gap: KnowledgeGap; writable: boolean }) {
  const navigation = useConsoleNavigation();
  const setStatus = useSetGapStatus();
  const [problem, setProblem] = useState<string | null>(null);
  const change = (status: 'open' | 'resolved') => {
    setProblem(null);
    setStatus.mutate({ id: gap.id, status }, { onError: () => setProblem(G.updateFailed) });
  };
  const reasons = (Object.keys(G.reasons) as Array<keyof typeof G.reasons>).filter((r) => gap.reasons[r] > 0);
  return (
    <li className={`cv-gap${gap.status === 'resolved' ? ' is-resolved' : ''}`} aria-label={gap.question}>
      <div className="cv-gap-main">
        <p className="cv-gap-question">{gap.question}</p>
        <p className="cv-gap-meta">
          <strong>{G.asked(gap.count)}</strong>
          {`, ${G.lastAsked(formatWhen(gap.lastAskedAt))}`}
          {gap.status === 'resolved' && gap.resolvedAt && ` · ${G.resolvedOn(formatWhen(gap.resolvedAt))}`}
        </p>
        <div className="kb-row-meta">
          <span className="kb-badge is-vertical">{verticalName(gap.vertical)}</span>
          {reasons.map((r) => (
            <span key={r} className={`kb-badge tone ${r === 'thumbsDown' ? 'is-danger' : 'is-warn'}`}>
              {G.reasons[r]} {gap.reasons[r]}
            </span>
          ))}
          {gap.reopenedAt && gap.status === 'open' && <span className="kb-badge tone is-warn">{G.reopened}</span>}
        </div>
        {gap.examples.length > 0 && (
          <div className="cv-gap-examples">
            <span>{G.alsoAsked}</span>
            <ul>
              {gap.examples.map((e) => (
                <li key={e}>{e}</li>
              ))}
            </ul>
          </div>
        )}
        {problem && (
          <p className="kb-save-problem" role="alert">
            {problem}
          </p>
        )}
      </div>
      {writable && (
      <div className="cv-gap-actions">
        {navigation && (
          <button type="button" className="kb-button is-primary" onClick={() => navigation.createKnowledgeItem({ title: gap.question, vertical: gap.vertical })}>
            <Plus size={16} aria-hidden="true" />
            {G.create}
          </button>
        )}
        {gap.status === 'open' ? (
          <button type="button" className="kb-button" disabled={setStatus.isPending} onClick={() => change('resolved')}>
            <CheckCircle2 size={16} aria-hidden="true" />
            {G.resolve}
          </button>
        ) : (
          <button type="button" className="kb-button" disabled={setStatus.isPending} onClick={() => change('open')}>
            <RotateCcw size={16} aria-hidden="true" />
            {G.reopen}
          </button>
        )}
      </div>
      )}
    </li>
  );
}

/** Knowledge gaps: the groups (most asked first), with "Create knowledge item" and resolve/reopen. */
export function KnowledgeGaps() {
  const { user } = useAuth();
  const writable = can(user?.role, 'knowledgeGapsWrite');
  const [status, setStatus] = useState('open');
  const [vertical, setVertical] = useState('');
  const [page, setPage] = useState(1);
  const gaps = useKnowledgeGaps({ status, vertical, page });
  const items = gaps.data?.items ?? [];
  return (
    <section className="cv-gaps" aria-labelledby="cv-gaps-title">
      <div className="cv-gaps-head">
        <div>
          <h2 id="cv-gaps-title">{G.title}</h2>
          <p className="cv-gaps-intro">{G.intro}</p>
        </div>
        <div className="cv-gaps-filters">
          <select className="kb-select" aria-label={G.status} value={status} onChange={(e) => (setStatus(e.target.value), setPage(1))}>
            {Object.entries(G.statuses).map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
          <select className="kb-select" aria-label={CONVERSATIONS.filters.vertical} value={vertical} onChange={(e) => (setVertical(e.target.value), setPage(1))}>
            <option value="">{CONVERSATIONS.filters.allVerticals}</option>
            {ENABLED_VERTICAL_IDS.map((id) => (
              <option key={id} value={id}>
                {verticalName(id)}
              </option>
            ))}
          </select>
        </div>
      </div>
      <p className="cv-list-head" role="status">
        {gaps.isPending ? G.loading : gaps.isError ? G.loadFailed : G.total(gaps.data?.total ?? 0)}
      </p>
      {!gaps.isPending && !gaps.isError && items.length === 0 ? (
        <p className="kb-list-empty">{G.empty}</p>
      ) : (
        <ul className="stack-list" aria-label={G.title}>
          {items.map((gap) => (
            <GapCard key={gap.id} gap={gap} writable={writable} />
          ))}
        </ul>
      )}
      {gaps.data && gaps.data.total > gaps.data.pageSize && (
        <nav className="cv-pager" aria-label={G.title}>
          <button type="button" className="kb-button" disabled={page <= 1} onClick={() => setPage(page - 1)}>
            {CONVERSATIONS.previous}
          </button>
          <span>{CONVERSATIONS.page(page, Math.ceil(gaps.data.total / gaps.data.pageSize))}</span>
          <button type="button" className="kb-button" disabled={page * gaps.data.pageSize >= gaps.data.total} onClick={() => setPage(page + 1)}>
            {CONVERSATIONS.next}
          </button>
        </nav>
      )}
    </section>
  );
}
