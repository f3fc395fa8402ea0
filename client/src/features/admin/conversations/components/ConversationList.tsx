import { LANGUAGES } from '@shared/catalog/languages';
import { ENABLED_VERTICAL_IDS } from '@shared/catalog/verticals';
import type { ConversationSummary } from '@shared/contracts/conversations';
import { ChevronLeft, ChevronRight, Search, ThumbsDown, ThumbsUp } from 'lucide-react';
import type { ConversationFilters } from '../api/conversations-api';
import { formatWhen, languageName, verticalName } from '../format';
import { CONVERSATIONS } from '../strings';

const C = CONVERSATIONS;
const F = C.filters;

export interface ConversationListProps {
  filters: ConversationFilters;
  onFiltersChange(filters: ConversationFilters): void;
  items: ConversationSummary[];
  total: number;
  page: number;
  pages: number;
  onPageChange(page: number): void;
  isLoading: boolean;
  isError: boolean;
  selectedId: string | null;
  onSelect(id: string): void;
  live: boolean;
}

/** The left panel: search, filters, the rows (newest activity first) and the pager. */
export function ConversationList(props: ConversationListProps) {
  const { filters, onFiltersChange, items, total, page, pages, onPageChange, isLoading, isError, selectedId, onSelect, live } = props;
  const set = (patch: Partial<ConversationFilters>) => onFiltersChange({ ...filters, ...patch });
  const filtered = Object.entries(filters).some(([key, value]) => key !== 'search' && value !== '');
  return (
    <aside className="cv-side" aria-labelledby="cv-list-title">
      <div className="cv-side-head">
        <h2 id="cv-list-title">{C.listTitle}</h2>
        <span className={`cv-live${live ? ' is-on' : ''}`} title={C.liveTitle}>
          <span className="cv-live-dot" aria-hidden="true" />
          {C.live}
        </span>
      </div>
      <div className="kb-search">
        <Search size={16} aria-hidden="true" />
        <input type="search" value={filters.search} placeholder={C.searchPlaceholder} aria-label={C.searchLabel} onChange={(e) => set({ search: e.target.value })} />
      </div>
      <fieldset className="cv-filters">
        <legend className="kb-visually-hidden">{F.label}</legend>
        <select className="kb-select" aria-label={F.vertical} value={filters.vertical} onChange={(e) => set({ vertical: e.target.value })}>
          <option value="">{F.allVerticals}</option>
          {ENABLED_VERTICAL_IDS.map((id) => (
            <option key={id} value={id}>
              {verticalName(id)}
            </option>
          ))}
        </select>
        <select className="kb-select" aria-label={F.language} value={filters.language} onChange={(e) => set({ language: e.target.value })}>
          <option value="">{F.allLanguages}</option>
          {LANGUAGES.map((l) => (
            <option key={l.code} value={l.code}>
              {l.name}
            </option>
          ))}
        </select>
        <select className="kb-select" aria-label={F.feedback} value={filters.feedback} onChange={(e) => set({ feedback: e.target.value })}>
          <option value="">{F.anyFeedback}</option>
          {Object.entries(F.feedbackOptions).map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
        <select className="kb-select" aria-label={F.answered} value={filters.answered} onChange={(e) => set({ answered: e.target.value })}>
          <option value="">{F.anyAnswered}</option>
          {Object.entries(F.answeredOptions).map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
        <label className="cv-date">
          <span>{F.from}</span>
          <input type="date" className="kb-select" value={filters.from} max={filters.to || undefined} onChange={(e) => set({ from: e.target.value })} />
        </label>
        <label className="cv-date">
          <span>{F.to}</span>
          <input type="date" className="kb-select" value={filters.to} min={filters.from || undefined} onChange={(e) => set({ to: e.target.value })} />
        </label>
      </fieldset>
      <div className="cv-list-head">
        <span role="status">{isLoading ? C.loading : isError ? C.loadFailed : C.total(total)}</span>
        {filtered && (
          <button type="button" className="cv-link" onClick={() => onFiltersChange({ ...filters, vertical: '', language: '', feedback: '', answered: '', from: '', to: '' })}>
            {F.clear}
          </button>
        )}
      </div>
      {!isLoading && !isError && items.length === 0 ? (
        <p className="kb-list-empty">{C.empty}</p>
      ) : (
        <ul className="kb-list cv-list" aria-label={C.listTitle}>
          {items.map((c) => (
            <li key={c.id}>
              <button type="button" className={`kb-row${c.id === selectedId ? ' is-selected' : ''}`} aria-current={c.id === selectedId ? 'true' : undefined} onClick={() => onSelect(c.id)}>
                <span className="kb-row-title">
                  <span className="kb-row-title-text">{c.title || C.untitled}</span>
                  <time className="cv-row-time" dateTime={c.updatedAt}>
                    {formatWhen(c.updatedAt)}
                  </time>
                </span>
                {c.match && <span className="kb-row-preview cv-match">{c.match}</span>}
                <span className="kb-row-meta">
                  <span className="kb-badge is-vertical">{verticalName(c.vertical)}</span>
                  {c.jurisdiction && <span className="kb-badge is-jurisdiction">{c.subJurisdiction ? `${c.jurisdiction} · ${c.subJurisdiction}` : c.jurisdiction}</span>}
                  {c.language && <span className="kb-badge">{languageName(c.language)}</span>}
                  <span className="kb-badge">{C.messages(c.messageCount)}</span>
                  {c.unanswered > 0 && <span className="kb-badge tone is-warn">{C.unanswered(c.unanswered)}</span>}
                  {c.feedback.down > 0 && (
                    <span className="kb-badge tone is-danger" title={C.transcript.thumbsDown}>
                      <ThumbsDown size={12} aria-label={C.transcript.thumbsDown} /> {c.feedback.down}
                    </span>
                  )}
                  {c.feedback.up > 0 && (
                    <span className="kb-badge tone is-ok" title={C.transcript.thumbsUp}>
                      <ThumbsUp size={12} aria-label={C.transcript.thumbsUp} /> {c.feedback.up}
                    </span>
                  )}
                </span>
              </button>
            </li>
          ))}
        </ul>
      )}
      {pages > 1 && (
        <nav className="cv-pager" aria-label={C.listTitle}>
          <button type="button" className="kb-icon-button" disabled={page <= 1} onClick={() => onPageChange(page - 1)} aria-label={C.previous} title={C.previous}>
            <ChevronLeft size={18} aria-hidden="true" />
          </button>
          <span>{C.page(page, pages)}</span>
          <button type="button" className="kb-icon-button" disabled={page >= pages} onClick={() => onPageChange(page + 1)} aria-label={C.next} title={C.next}>
            <ChevronRight size={18} aria-hidden="true" />
          </button>
        </nav>
      )}
    </aside>
  );
}
