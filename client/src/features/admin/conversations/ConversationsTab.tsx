import { useEffect, useId, useRef, useState } from 'react';
import { NO_FILTERS, PAGE_SIZE, type ConversationFilters } from './api/conversations-api';
import { ConversationList } from './components/ConversationList';
import { KnowledgeGaps } from './components/KnowledgeGaps';
import { TranscriptView } from './components/TranscriptView';
import { useConversationList, useTranscript } from './hooks/useConversations';
import { connectConversationsFeed, useConversationsLive, type ConversationsFeed } from './hooks/useConversationsLive';
import { CONVERSATIONS } from './strings';
import './conversations.css';

/** How long the search text must rest before the list reloads. */
export const SEARCH_DEBOUNCE_MS = 300;

export interface ConversationsTabProps {
  /** The `/admin` socket (tests hand in their own). */
  connectFeed?: () => ConversationsFeed;
}

type View = 'transcripts' | 'gaps';

function useDebounced<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

/**
 * The Conversations tab: visitors' conversations (filters, search, pages; a transcript with the
 * sources and confidence of each reply; Export JSON) and the knowledge gaps. Live over `/admin`.
 */
export function ConversationsTab({ connectFeed = connectConversationsFeed }: ConversationsTabProps) {
  const ids = useId();
  const [view, setView] = useState<View>('transcripts');
  const [filters, setFilters] = useState<ConversationFilters>(NO_FILTERS);
  const [page, setPage] = useState(1);
  const [selected, setSelected] = useState<string | null>(null);
  const search = useDebounced(filters.search, SEARCH_DEBOUNCE_MS);
  const list = useConversationList({ ...filters, search }, page);
  const transcript = useTranscript(selected);
  const live = useConversationsLive(connectFeed);
  const transcriptRef = useRef<HTMLDivElement>(null);
  const pages = Math.max(1, Math.ceil((list.data?.total ?? 0) / PAGE_SIZE));

  const select = (id: string) => {
    setSelected(id);
    // On a narrow screen the transcript is under the list.
    requestAnimationFrame(() => {
      if (window.matchMedia?.('(max-width: 860px)').matches) transcriptRef.current?.scrollIntoView({ block: 'start' });
    });
  };

  return (
    <div className="cv-tab">
      <div className="cv-views" role="group" aria-label={CONVERSATIONS.views.label}>
        {(['transcripts', 'gaps'] as const).map((v) => (
          <button key={v} type="button" className={`cv-view${view === v ? ' is-active' : ''}`} aria-pressed={view === v} aria-controls={view === v ? `${ids}-${v}` : undefined} onClick={() => setView(v)}>
            {CONVERSATIONS.views[v]}
          </button>
        ))}
      </div>
      {view === 'gaps' ? (
        <div id={`${ids}-gaps`}>
          <KnowledgeGaps />
        </div>
      ) : (
        <div className="kb-tab cv-transcripts" id={`${ids}-transcripts`}>
          <ConversationList
            filters={filters}
            onFiltersChange={(next) => {
              setFilters(next);
              setPage(1);
            }}
            items={list.data?.items ?? []}
            total={list.data?.total ?? 0}
            page={page}
            pages={pages}
            onPageChange={setPage}
            isLoading={list.isPending}
            isError={list.isError}
            selectedId={selected}
            onSelect={select}
            live={live}
          />
          <div className="kb-main" ref={transcriptRef}>
            {selected === null ? (
              <p className="kb-placeholder">{CONVERSATIONS.transcript.placeholder}</p>
            ) : transcript.data ? (
              <TranscriptView transcript={transcript.data} onClose={() => setSelected(null)} />
            ) : (
              <p className="kb-placeholder" role="status">
                {transcript.isError ? CONVERSATIONS.transcript.loadFailed : CONVERSATIONS.transcript.loading}
              </p>
            )}
          </div>
        </div>
      )}
    </div>
  );
}

export default ConversationsTab;
