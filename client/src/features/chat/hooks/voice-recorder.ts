/**
 * The microphone without browser speech recognition (loaded only when it is used, so the chat
 * page and the widget do not carry it): records with MediaRecorder until stopped or `maxMs`, then
 * sends the recording to POST /api/voice/transcriptions and hands back the text.
 */

/** The voice error codes this module reports (voiceErrorMessage gives their text). */
export const TRANSCRIBE_FAILED = 'transcribe-failed';

export interface Recording {
  /** Stops recording; `onDone` follows with the audio. */
  stop(): void;
  /** Stops recording and drops the audio (the page went away). */
  cancel(): void;
}

/** Containers MediaRecorder may write, preferred first (Chromium: WebM, Firefox: Ogg, Safari: MP4). */
const TYPES = ['audio/webm;codecs=opus', 'audio/ogg;codecs=opus', 'audio/webm', 'audio/ogg', 'audio/mp4'];

/** The voice error code of a getUserMedia failure. */
function codeOf(error: unknown): string {
  const name = (error as { name?: unknown } | null)?.name;
  if (name === 'NotAllowedError' || name === 'SecurityError') return 'not-allowed';
  if (name === 'NotFoundError' || name === 'OverconstrainedError' || name === 'NotReadableError') return 'audio-capture';
  return 'start-failed';
}

/** Starts recording from the microphone; rejects with a voice error code when it cannot. */
export async function startRecording(options: { maxMs: number; onDone(audio: Blob): void }): Promise<Recording> {
  let stream: MediaStream;
  try {
    stream = await navigator.mediaDevices.getUserMedia({ audio: true });
  } catch (error) {
    throw codeOf(error);
  }
  const release = () => stream.getTracks().forEach((track) => track.stop());
  const type = TYPES.find((candidate) => typeof MediaRecorder.isTypeSupported !== 'function' || MediaRecorder.isTypeSupported(candidate));
  let recorder: MediaRecorder;
  try {
    recorder = new MediaRecorder(stream, type ? { mimeType: type } : undefined);
  } catch {
    release();
    throw 'start-failed';
  }
  const chunks: Blob[] = [];
  let cancelled = false;
  recorder.ondataavailable = (event) => {
    if (event.data && event.data.size > 0) chunks.push(event.data);
  };
  recorder.onstop = () => {
    clearTimeout(timer);
    release();
    if (!cancelled) options.onDone(new Blob(chunks, { type: recorder.mimeType || type || 'audio/webm' }));
  };
  const stop = () => {
    if (recorder.state !== 'inactive') recorder.stop();
  };
  const timer = setTimeout(stop, options.maxMs);
  try {
    recorder.start();
  } catch {
    clearTimeout(timer);
    release();
    throw 'start-failed';
  }
  return {
    stop,
    cancel: () => {
      cancelled = true;
      stop();
    },
  };
}

function extensionOf(type: string): string {
  if (type.includes('ogg')) return 'ogg';
  if (type.includes('mp4')) return 'm4a';
  if (type.includes('wav')) return 'wav';
  return 'webm';
}

/** Sends the recording to be transcribed; the text, or a rejection with TRANSCRIBE_FAILED. */
export async function transcribe(fetchImpl: typeof fetch, audio: Blob, language: string): Promise<string> {
  const form = new FormData();
  form.append('file', audio, `recording.${extensionOf(audio.type)}`);
  const query = /^[a-z]{2}$/.test(language) ? `?language=${language}` : '';
  let body: { success?: boolean; data?: { text?: unknown } } | undefined;
  try {
    const res = await fetchImpl(`/api/voice/transcriptions${query}`, { method: 'POST', body: form, headers: { Accept: 'application/json' } });
    body = (await res.json()) as typeof body;
    if (!res.ok) throw new Error(String(res.status));
  } catch {
    throw TRANSCRIBE_FAILED;
  }
  if (body?.success !== true || typeof body.data?.text !== 'string') throw TRANSCRIBE_FAILED;
  return body.data.text;
}
