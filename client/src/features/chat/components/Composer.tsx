import { forwardRef, useId, type KeyboardEvent } from 'react';
import { Mic, MicOff, SendHorizontal, Square } from 'lucide-react';
import type { ConnectionStatus } from '../api/chat-connection';
import { CHAT, VOICE } from '../strings';

export interface ComposerProps {
  value: string;
  onChange(value: string): void;
  onSend(): void;
  onStop(): void;
  status: ConnectionStatus;
  /** A reply is streaming: Stop replaces Send. */
  pending: boolean;
  voice: { supported: boolean; listening: boolean; interim: string; toggle(): void };
  /** Name of the chosen language, for the recording banner. */
  languageName: string;
}

function placeholderFor(status: ConnectionStatus, listening: boolean): string {
  if (listening) return CHAT.listeningPlaceholder;
  if (status === 'offline') return CHAT.offlinePlaceholder;
  if (status === 'connecting') return CHAT.connectingPlaceholder;
  return CHAT.placeholder;
}

/** The text area (Enter sends, Shift+Enter adds a line), the microphone, and Send or Stop. */
export const Composer = forwardRef<HTMLTextAreaElement, ComposerProps>(function Composer(props, ref) {
  const { value, onChange, onSend, onStop, status, pending, voice, languageName } = props;
  const inputId = useId();
  const hintId = useId();
  const online = status === 'online';
  const canSend = online && !pending && !voice.listening && value.trim() !== '';

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
          {VOICE.recording(languageName)}
        </div>
      )}
      <div className="composer-row">
        <div className="composer-input">
          <label htmlFor={inputId} className="sr-only">
            {CHAT.inputLabel}
          </label>
          <textarea
            ref={ref}
            id={inputId}
            rows={2}
            value={value}
            disabled={!online || voice.listening}
            placeholder={placeholderFor(status, voice.listening)}
            aria-describedby={hintId}
            onChange={(event) => onChange(event.target.value)}
            onKeyDown={onKeyDown}
          />
          {voice.interim && (
            <div className="interim-hint" data-testid="interim-hint" aria-live="polite">
              {voice.interim}
            </div>
          )}
        </div>
        {voice.supported && (
          <button
            type="button"
            className={voice.listening ? 'icon-button mic-button is-listening' : 'icon-button mic-button'}
            aria-label={voice.listening ? VOICE.stop : VOICE.start}
            aria-pressed={voice.listening}
            disabled={!online && !voice.listening}
            onClick={voice.toggle}
          >
            {voice.listening ? <MicOff aria-hidden="true" size={20} /> : <Mic aria-hidden="true" size={20} />}
          </button>
        )}
        {pending ? (
          <button type="button" className="send-button stop-button" onClick={onStop}>
            <Square aria-hidden="true" size={16} fill="currentColor" />
            <span>{CHAT.stop}</span>
          </button>
        ) : (
          <button type="submit" className="send-button" disabled={!canSend}>
            <SendHorizontal aria-hidden="true" size={18} />
            <span>{CHAT.send}</span>
          </button>
        )}
      </div>
      <p id={hintId} className="composer-hint">
        {CHAT.inputHint}
      </p>
    </form>
  );
});
