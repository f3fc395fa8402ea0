/**
 * A stand-in for the browser's SpeechRecognition (the Web Speech API): records how the page
 * configures and drives it, and lets a test play recognised speech and errors.
 */
import type { RecognitionLike, RecognitionResultEventLike } from '../hooks/useSpeechRecognition';

export class FakeSpeechRecognition implements RecognitionLike {
  static instances: FakeSpeechRecognition[] = [];
  /** Makes the next start() throw, as browsers do when recognition is already running. */
  static failNextStart = false;

  lang = '';
  continuous = true;
  interimResults = false;
  maxAlternatives = 5;
  onresult: ((event: RecognitionResultEventLike) => void) | null = null;
  onerror: ((event: { error: string }) => void) | null = null;
  onend: (() => void) | null = null;
  started = false;
  stopCalls = 0;
  abortCalls = 0;

  constructor() {
    FakeSpeechRecognition.instances.push(this);
  }

  static reset(): void {
    FakeSpeechRecognition.instances = [];
    FakeSpeechRecognition.failNextStart = false;
  }

  static latest(): FakeSpeechRecognition {
    const last = FakeSpeechRecognition.instances[FakeSpeechRecognition.instances.length - 1];
    if (!last) throw new Error('no recognition was created');
    return last;
  }

  start(): void {
    if (FakeSpeechRecognition.failNextStart) {
      FakeSpeechRecognition.failNextStart = false;
      throw new Error('InvalidStateError');
    }
    this.started = true;
  }

  /** Like the browser: stopping ends recognition (onend). */
  stop(): void {
    this.stopCalls += 1;
    this.end();
  }

  abort(): void {
    this.abortCalls += 1;
  }

  /** Plays one result event; each entry is one result with a single alternative. */
  result(results: { transcript: string; isFinal: boolean }[], resultIndex = 0): void {
    const list = results.map((r) => Object.assign([{ transcript: r.transcript }], { isFinal: r.isFinal }));
    this.onresult?.({ resultIndex, results: list });
  }

  error(code: string): void {
    this.onerror?.({ error: code });
    this.end();
  }

  end(): void {
    this.started = false;
    this.onend?.();
  }
}
