import { useCallback, useEffect, useRef, useState } from 'react';
import { en, type ChatStrings } from '../i18n/en';

/** The parts of the Web Speech API's SpeechRecognition this page uses (not in every TS DOM lib). */
export interface RecognitionLike {
  lang: string;
  continuous: boolean;
  interimResults: boolean;
  maxAlternatives: number;
  onresult: ((event: RecognitionResultEventLike) => void) | null;
  onerror: ((event: { error: string }) => void) | null;
  onend: (() => void) | null;
  start(): void;
  stop(): void;
  abort(): void;
}

export interface RecognitionResultEventLike {
  resultIndex: number;
  results: ArrayLike<ArrayLike<{ transcript: string }> & { isFinal: boolean }>;
}

export type RecognitionConstructor = new () => RecognitionLike;

/** The browser's recogniser, prefixed or not; undefined where voice input is unsupported. */
export function getRecognitionConstructor(): RecognitionConstructor | undefined {
  if (typeof window === 'undefined') return undefined;
  const w = window as unknown as { SpeechRecognition?: RecognitionConstructor; webkitSpeechRecognition?: RecognitionConstructor };
  return w.SpeechRecognition ?? w.webkitSpeechRecognition;
}

/** Codes of the failures the hook reports itself (the others are the recogniser's error codes). */
export const UNSUPPORTED = 'unsupported';
export const START_FAILED = 'start-failed';

/** The message for a voice error code, in the visitor's language. */
export function voiceErrorMessage(code: string, VOICE: ChatStrings['voice'] = en.voice): string {
  switch (code) {
    case UNSUPPORTED:
      return VOICE.unsupported;
    case START_FAILED:
      return VOICE.startFailed;
    case 'not-allowed':
      return VOICE.notAllowed;
    case 'service-not-allowed':
      return VOICE.serviceNotAllowed;
    case 'network':
      return VOICE.network;
    case 'no-speech':
      return VOICE.noSpeech;
    case 'audio-capture':
      return VOICE.noMicrophone;
    case 'transcribe-failed':
      return VOICE.transcribeFailed;
    default:
      return VOICE.other(code);
  }
}

function detach(recognition: RecognitionLike): void {
  recognition.onresult = null;
  recognition.onerror = null;
  recognition.onend = null;
}

/**
 * Voice input: one utterance per press, interim results shown as they come, final text handed
 * to `onFinal`. A second press stops listening; listening also ends when the speech ends. A
 * failure is handed to `onError` as a code (voiceErrorMessage gives its text); the page shows it
 * in the page rather than in a browser alert.
 */
export function useSpeechRecognition(options: { locale: string; onFinal: (text: string) => void; onError?: (code: string) => void }) {
  const [Recognition] = useState(getRecognitionConstructor);
  const [listening, setListening] = useState(false);
  const [interim, setInterim] = useState('');
  const active = useRef<RecognitionLike | null>(null);
  const onFinal = useRef(options.onFinal);
  onFinal.current = options.onFinal;
  const onError = useRef(options.onError);
  onError.current = options.onError;
  const fail = useCallback((code: string) => {
    if (onError.current) onError.current(code);
    else window.alert(voiceErrorMessage(code));
  }, []);

  const finish = useCallback((recognition: RecognitionLike) => {
    if (active.current !== recognition) return;
    detach(recognition);
    active.current = null;
    setListening(false);
    setInterim('');
  }, []);

  const start = useCallback(() => {
    if (!Recognition) {
      fail(UNSUPPORTED);
      return;
    }
    let recognition: RecognitionLike;
    try {
      recognition = new Recognition();
      recognition.lang = options.locale;
      recognition.continuous = false;
      recognition.interimResults = true;
      recognition.maxAlternatives = 1;
    } catch {
      fail(START_FAILED);
      return;
    }
    recognition.onresult = (event) => {
      let finalText = '';
      let interimText = '';
      for (let i = event.resultIndex; i < event.results.length; i += 1) {
        const result = event.results[i];
        const transcript = result[0]?.transcript ?? '';
        if (result.isFinal) finalText += transcript;
        else interimText += transcript;
      }
      setInterim(interimText);
      if (finalText.trim() !== '') onFinal.current(finalText.trim());
    };
    recognition.onerror = (event) => {
      finish(recognition);
      fail(event.error);
    };
    recognition.onend = () => finish(recognition);
    active.current = recognition;
    try {
      recognition.start();
      setListening(true);
    } catch {
      finish(recognition);
      fail(START_FAILED);
    }
  }, [Recognition, fail, finish, options.locale]);

  const stop = useCallback(() => {
    active.current?.stop();
  }, []);

  const toggle = useCallback(() => (active.current ? stop() : start()), [start, stop]);

  useEffect(
    () => () => {
      const recognition = active.current;
      if (!recognition) return;
      detach(recognition);
      active.current = null;
      recognition.abort();
    },
    [],
  );

  return { supported: Recognition !== undefined, listening, interim, start, stop, toggle };
}
