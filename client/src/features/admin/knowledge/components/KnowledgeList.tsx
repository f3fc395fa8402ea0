import { getJurisdiction, JURISDICTIONS } from '@shared/catalog/jurisdictions';
import { Paperclip, Plus, Search } from 'lucide-react';
import type { ReactNode } from 'react';
import type { KnowledgeItem } from '../api/knowledge-api';
import { markdownToPlainText } from '../../../../lib/markdown-text';
import { KNOWLEDGE } from '../strings';

/** The filter's choices: 'all', then every vertical an item may belong to. */
export const VERTICAL_FILTERS = ['all', ...Object.keys(KNOWLEDGE.verticals)];

export const verticalLabel = (id: string) => KNOWLEDGE.verticals[id] ?? id;

/** A legal item's jurisdiction as its list badge shows it: 'US · California' (the title names it in full). */
export function jurisdictionLabel(code: string, subRegion: string | null | undefined): string {
  return subRegion ? `${code} · ${subRegion}` : code;
}

/** The row shows two lines of it (clamped by CSS); a long item need not be rendered whole. */
const PREVIEW_CHARS = 300;

export interface KnowledgeListProps {
  items: KnowledgeItem[];
  isLoading: boolean;
  selectedId: string | null;
  search: string;
  vertical: string;
  /** Legal filter: 'all', 'none' (general items) or a jurisdiction code. */
  jurisdiction: string;
  /** With a jurisdiction: '' for any sub-region, or one of its sub-regions. */
  subRegion: string;
  onSearchChange(text: string): void;
  onVerticalChange(vertical: string): void;
  onJurisdictionChange(jurisdiction: string, subRegion: string): void;
  onSelect(item: KnowledgeItem): void;
  /** Absent: no plus button (a member who may not add knowledge). */
  onNew?(): void;
  /** The quick upload box, under the list. */
  children?: ReactNode;
}

/** The left panel 'Knowledge Items': plus button, search, vertical filter, the scrolling list. */
export function KnowledgeList(props: KnowledgeListProps) {
  const { items, isLoading, selectedId, search, vertical, jurisdiction, subRegion, onSearchChange, onVerticalChange, onJurisdictionChange, onSelect, onNew, children } = props;
  const J = KNOWLEDGE.jurisdictionFilter;
  const chosen = jurisdiction !== 'all' && jurisdiction !== 'none' ? getJurisdiction(jurisdiction) : undefined;
  return (
    <aside className="kb-side" aria-labelledby="kb-list-title">
      <div className="kb-side-head">
        <h2 id="kb-list-title">{KNOWLEDGE.listTitle}</h2>
        {onNew && (
          <button type="button" className="kb-icon-button is-primary" onClick={onNew} aria-label={KNOWLEDGE.newItem} title={KNOWLEDGE.newItem}>
            <Plus size={18} aria-hidden="true" />
          </button>
        )}
      </div>
      <div className="kb-search">
        <Search size={16} aria-hidden="true" />
        <input type="search" value={search} placeholder={KNOWLEDGE.searchPlaceholder} aria-label={KNOWLEDGE.searchLabel} onChange={(event) => onSearchChange(event.target.value)} />
      </div>
      <select className="kb-select" value={vertical} aria-label={KNOWLEDGE.filterLabel} onChange={(event) => onVerticalChange(event.target.value)}>
        {VERTICAL_FILTERS.map((id) => (
          <option key={id} value={id}>
            {id === 'all' ? KNOWLEDGE.allVerticals : verticalLabel(id)}
          </option>
        ))}
      </select>
      {vertical === 'legal' && (
        <div className="kb-filter-row">
          <select className="kb-select" value={jurisdiction} aria-label={J.label} onChange={(event) => onJurisdictionChange(event.target.value, '')}>
            <option value="all">{J.all}</option>
            <option value="none">{J.none}</option>
            {JURISDICTIONS.map((j) => (
              <option key={j.code} value={j.code}>
                {j.name}
              </option>
            ))}
          </select>
          {chosen && chosen.subRegions.length > 0 && (
            <select className="kb-select" value={subRegion} aria-label={J.subRegionLabel} onChange={(event) => onJurisdictionChange(jurisdiction, event.target.value)}>
              <option value="">{J.allSubRegions(chosen.subRegionLabel ?? 'Region')}</option>
              {chosen.subRegions.map((r) => (
                <option key={r} value={r}>
                  {r}
                </option>
              ))}
            </select>
          )}
        </div>
      )}

      {isLoading ? (
        <p className="kb-list-empty" role="status">
          {KNOWLEDGE.loadingList}
        </p>
      ) : items.length === 0 ? (
        <p className="kb-list-empty">{KNOWLEDGE.emptyList}</p>
      ) : (
        <ul className="kb-list" aria-label={KNOWLEDGE.listTitle}>
          {items.map((item) => (
            <li key={item.id}>
              <button type="button" className={`kb-row${item.id === selectedId ? ' is-selected' : ''}`} aria-current={item.id === selectedId ? 'true' : undefined} onClick={() => onSelect(item)}>
                <span className="kb-row-title">
                  <span className="kb-row-title-text">{item.title}</span>
                  {item.attachments.length > 0 && (
                    <Paperclip className="kb-row-clip" size={14} role="img" aria-label={KNOWLEDGE.hasAttachments} aria-hidden={false} />
                  )}
                </span>
                <span className="kb-row-preview">{markdownToPlainText(item.content.slice(0, PREVIEW_CHARS * 2)).slice(0, PREVIEW_CHARS)}</span>
                <span className="kb-row-meta">
                  <span className="kb-badge is-vertical">{verticalLabel(item.vertical)}</span>
                  {item.jurisdiction && (
                    <span className="kb-badge is-jurisdiction" title={getJurisdiction(item.jurisdiction)?.name}>
                      {jurisdictionLabel(item.jurisdiction, item.subRegion)}
                    </span>
                  )}
                  {item.tags.slice(0, 2).map((tag) => (
                    <span key={tag} className="kb-badge">
                      {tag}
                    </span>
                  ))}
                </span>
              </button>
            </li>
          ))}
        </ul>
      )}
      {children}
    </aside>
  );
}
