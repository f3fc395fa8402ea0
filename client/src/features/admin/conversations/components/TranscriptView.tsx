import type { ConversationTranscript, TranscriptMessage } from '@shared/contracts/conversations';
import { formatDuration } from '../../../../lib/format';
import { Download, ThumbsDown, ThumbsUp, X } from 'lucide-react';
import { Markdown } from '../../../chat';
import { conversationsApi } from '../api/conversations-api';
import { formatPercent } from '../../../../lib/format';
import { formatWhen, languageName, verticalName } from '../format';
import { CONVERSATIONS } from '../strings';

const T = CONVERSATIONS.transcript;

function AgentMeta({ message }: { message: TranscriptMessage }) {
  return (
    <div className="cv-reply-meta">
      {message.status !== 'complete' && <span className="kb-badge tone is-warn">{T.status[message.status] ?? message.status}</span>}
      {message.answered === true && <span className="kb-badge tone is-ok">{T.answered}</span>}
      {message.answered === false && <span className="kb-badge tone is-warn">{T.notFound}</span>}
      {message.confidence !== null && (
        <span className="kb-badge">
          {T.confidence} {formatPercent(message.confidence)}
        </span>
      )}
      {message.feedback === 'down' && (
        <span className="kb-badge tone is-danger">
          <ThumbsDown size={12} aria-hidden="true" /> {T.thumbsDown}
        </span>
      )}
      {message.feedback === 'up' && (
        <span className="kb-badge tone is-ok">
          <ThumbsUp size={12} aria-hidden="true" /> {T.thumbsUp}
        </span>
      )}
      {message.timeToFirstToken !== null && (
        <span className="cv-timing">
          {T.firstToken} {formatDuration(message.timeToFirstToken)}
        </span>
      )}
      {message.executionTime !== null && (
        <span className="cv-timing">
          {T.took} {formatDuration(message.executionTime)}
        </span>
      )}
      {message.model && <span className="cv-timing">{message.model}</span>}
    </div>
  );
}

/** One conversation: every message, and for each reply its sources, confidence, vote and timings. */
export function TranscriptView({ transcript, onClose }: { transcript: ConversationTranscript; onClose(): void }) {
  return (
    <article className="cv-transcript" aria-labelledby="cv-transcript-title">
      <header className="cv-transcript-head">
        <div className="cv-transcript-heading">
          <h2 id="cv-transcript-title">{transcript.title || CONVERSATIONS.untitled}</h2>
          <p className="cv-transcript-sub">
            {verticalName(transcript.vertical)}
            {transcript.jurisdiction && ` · ${transcript.subJurisdiction ? `${transcript.jurisdiction} · ${transcript.subJurisdiction}` : transcript.jurisdiction}`}
            {transcript.language && ` · ${languageName(transcript.language)}`}
            {` · ${T.started(formatWhen(transcript.createdAt))}`}
            {!transcript.open && ` · ${CONVERSATIONS.closed}`}
          </p>
        </div>
        <div className="kb-editor-actions">
          <a className="kb-button" href={conversationsApi.exportUrl(transcript.id)} download={`conversation-${transcript.id}.json`}>
            <Download size={16} aria-hidden="true" />
            {T.export}
          </a>
          <button type="button" className="kb-icon-button" onClick={onClose} aria-label={T.close} title={T.close}>
            <X size={18} aria-hidden="true" />
          </button>
        </div>
      </header>
      <ol className="stack-list">
        {transcript.messages.map((m) => (
          <li key={m.id} className={`cv-message is-${m.role}`}>
            <div className="cv-message-head">
              <span className="cv-message-role">{m.role === 'user' ? T.visitor : T.agent}</span>
              <time dateTime={m.createdAt}>{formatWhen(m.createdAt)}</time>
            </div>
            {m.role === 'agent' && m.content ? (
              <div className="cv-message-text markdown">
                <Markdown text={m.content} />
              </div>
            ) : (
              <p className="cv-message-text">{m.content || (m.error ? m.error.message : '')}</p>
            )}
            {m.role === 'agent' && (
              <>
                <AgentMeta message={m} />
                {m.sources.length > 0 ? (
                  <div className="cv-sources">
                    <span className="cv-sources-label">{T.sources}</span>
                    <ul>
                      {m.sources.map((s) => (
                        <li key={s.id}>
                          {s.title} <span className="cv-score">{s.score.toFixed(2)}</span>
                        </li>
                      ))}
                    </ul>
                  </div>
                ) : (
                  m.status === 'complete' && <p className="cv-sources-none">{T.noSources}</p>
                )}
              </>
            )}
          </li>
        ))}
      </ol>
    </article>
  );
}
