import { forwardRef, useId, type KeyboardEvent } from 'react';
import { Clock, Mic, MicOff, SendHorizontal, Square, X } from 'lucide-react';
import type { ConnectionStatus } from '../api/chat-connection';
import { useStrings } from '../i18n';

export interface ComposerProps {
  value: string;
  onChange(value: string): void;
  onSend(): void;
  onStop(): void;
  /** null: the first connection is still being made (and has not taken long): nothing is said about it. */
  status: ConnectionStatus | null;
  /** A reply is streaming: Stop replaces Send. */
  pending: boolean;
  /** A rate limit asked to wait: Send stays off until it is over (the text stays). */
  waiting?: boolean;
  /** A message waits for the connection to come back (sent then). */
  queued?: boolean;
  onCancelQueued?(): void;
  voice: { supported: boolean; listening: boolean; transcribing?: boolean; interim: string; toggle(): void };
  /** Name of the chosen language, for the recording banner. */
  languageName: string;
}

/**
 * The text area (Enter sends, Shift+Enter adds a line), the microphone, and Send or Stop. The
 * visitor can always type: offline, Send keeps the message and it goes out when the connection
 * is back.
 */
export const Composer = forwardRef<HTMLTextAreaElement, ComposerProps>(function Composer(props, ref) {
  const { value, onChange, onSend, onStop, status, pending, waiting = false, queued = false, onCancelQueued, voice, languageName } = props;
  const t = useStrings();
  const inputId = useId();
  const hintId = useId();
  const canSend = !pending && !waiting && !queued && !voice.listening && !voice.transcribing && value.trim() !== '';
  const placeholder = voice.listening
    ? t.chat.listeningPlaceholder
    : status === 'offline'
      ? t.chat.offlinePlaceholder
      : status === 'connecting'
        ? t.chat.connectingPlaceholder
        : t.chat.placeholder;

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key !== 'Enter' || event.shiftKey || event.nativeEvent.isComposing) return;
    event.preventDefault();
    onSend();
  };

  return (
    <form
      className="composer"
      onSubmit={(event) => {
        event.preventDefault();
        onSend();
      }}
    >
      {voice.listening && (
        <div className="recording-banner" role="status">
          <span className="recording-dot" aria-hidden="true" />
          {t.voice.recording(languageName)}
        </div>
      )}
      {voice.transcribing && (
        <div className="transcribing-note" role="status">
          {t.voice.transcribing}
        </div>
      )}
      {voice.interim && (
        // In the flow under the red banner, never over it: both stay readable while the visitor speaks.
        <div className="interim-hint" data-testid="interim-hint" aria-live="polite">
          {voice.interim}
        </div>
      )}
      {queued && (
        <div className="queued-note" role="status">
          <Clock aria-hidden="true" size={16} />
          <span>{t.chat.queued}</span>
          {onCancelQueued && (
            <button type="button" className="queued-cancel" onClick={onCancelQueued} aria-label={t.chat.cancelQueued} title={t.chat.cancelQueued}>
              <X aria-hidden="true" size={16} />
            </button>
          )}
        </div>
      )}
      <div className="composer-row">
        <div className="composer-input">
          <label htmlFor={inputId} className="sr-only">
            {t.chat.inputLabel}
          </label>
          <textarea
            ref={ref}
            id={inputId}
            rows={2}
            value={value}
            disabled={voice.listening || voice.transcribing}
            placeholder={placeholder}
            aria-describedby={hintId}
            onChange={(event) => onChange(event.target.value)}
            onKeyDown={onKeyDown}
          />
        </div>
        {voice.supported && (
          <button
            type="button"
            className={voice.listening ? 'icon-button mic-button is-listening' : 'icon-button mic-button'}
            aria-label={voice.listening ? t.voice.stop : t.voice.start}
            title={voice.listening ? t.voice.stop : t.voice.start}
            aria-pressed={voice.listening}
            disabled={voice.transcribing}
            onClick={voice.toggle}
          >
            {voice.listening ? <MicOff aria-hidden="true" size={20} /> : <Mic aria-hidden="true" size={20} />}
          </button>
        )}
        {pending ? (
          <button type="button" className="send-button stop-button" onClick={onStop}>
            <Square aria-hidden="true" size={16} fill="currentColor" />
            <span>{t.chat.stop}</span>
          </button>
        ) : (
          <button type="submit" className="send-button" disabled={!canSend}>
            <SendHorizontal aria-hidden="true" size={18} className="flip-rtl" />
            <span>{t.chat.send}</span>
          </button>
        )}
      </div>
      <p id={hintId} className="composer-hint">
        {t.chat.inputHint}
      </p>
    </form>
  );
});
