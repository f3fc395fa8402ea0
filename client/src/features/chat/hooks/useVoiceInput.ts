import { useCallback, useEffect, useRef, useState } from 'react';
import { useSpeechRecognition } from './useSpeechRecognition';
import type { Recording } from './voice-recorder';

/** Whether this browser can record audio (MediaRecorder and the microphone API). */
export function canRecord(): boolean {
  return typeof window !== 'undefined' && typeof (window as { MediaRecorder?: unknown }).MediaRecorder === 'function' && typeof navigator !== 'undefined' && typeof navigator.mediaDevices?.getUserMedia === 'function';
}

export interface VoiceInput {
  supported: boolean;
  listening: boolean;
  /** The recording is being turned into text on the server. */
  transcribing: boolean;
  interim: string;
  toggle(): void;
}

/**
 * The microphone: the browser's speech recognition where there is one; otherwise, when the browser
 * can record and the server has a speech-to-text provider (GET /api/public/voice), a recording
 * (MediaRecorder, at most the server's limit, stopped by a second press) sent to be transcribed.
 * Neither: no microphone. The recorder is loaded only when the microphone is first pressed.
 */
export function useVoiceInput(options: { locale: string; language: string; fetch: typeof fetch; onFinal: (text: string) => void; onError: (code: string) => void }): VoiceInput {
  const speech = useSpeechRecognition({ locale: options.locale, onFinal: options.onFinal, onError: options.onError });
  const [recordable] = useState(() => !speech.supported && canRecord());
  const [limits, setLimits] = useState<{ maxSeconds: number } | null>(null);
  const [listening, setListening] = useState(false);
  const [transcribing, setTranscribing] = useState(false);
  const active = useRef<Recording | null>(null);
  const starting = useRef(false);
  const latest = useRef(options);
  latest.current = options;

  useEffect(() => {
    if (!recordable) return;
    let live = true;
    options
      .fetch('/api/public/voice', { headers: { Accept: 'application/json' } })
      .then((res) => (res.ok ? res.json() : undefined))
      .then((body: { data?: { transcription?: unknown; maxSeconds?: unknown } } | undefined) => {
        if (live && body?.data?.transcription === true) setLimits({ maxSeconds: typeof body.data.maxSeconds === 'number' ? body.data.maxSeconds : 60 });
      })
      .catch(() => undefined);
    return () => {
      live = false;
    };
    // Asked once per page: the answer changes only when an administrator changes the setting.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [recordable]);

  useEffect(() => () => active.current?.cancel(), []);

  const start = useCallback(async () => {
    if (!limits || starting.current || transcribing) return;
    starting.current = true;
    try {
      const recorder = await import('./voice-recorder');
      active.current = await recorder.startRecording({
        maxMs: limits.maxSeconds * 1000,
        onDone: (audio) => {
          active.current = null;
          setListening(false);
          setTranscribing(true);
          recorder
            .transcribe(latest.current.fetch, audio, latest.current.language)
            .then((text) => {
              if (text.trim() === '') latest.current.onError('no-speech');
              else latest.current.onFinal(text.trim());
            })
            .catch((code: unknown) => latest.current.onError(typeof code === 'string' ? code : recorder.TRANSCRIBE_FAILED))
            .finally(() => setTranscribing(false));
        },
      });
      setListening(true);
    } catch (code) {
      latest.current.onError(typeof code === 'string' ? code : 'start-failed');
    } finally {
      starting.current = false;
    }
  }, [limits, transcribing]);

  const toggle = useCallback(() => {
    if (active.current) active.current.stop();
    else void start();
  }, [start]);

  if (speech.supported) return { ...speech, transcribing: false };
  return { supported: limits !== null, listening, transcribing, interim: '', toggle };
}
