import { screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { stringsFor } from './i18n';
import { FAKE_WEBM, FakeMediaRecorder, installFakeRecorder } from './testing/fake-recorder';
import { fakeFetch, renderChat } from './testing/render-chat';

/** No SpeechRecognition in jsdom: these are the browsers (Firefox) that fall back to recording. */
const input = () => screen.getByRole('textbox', { name: 'Your message' });
const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

let uninstall: (() => void) | undefined;
afterEach(() => {
  uninstall?.();
  uninstall = undefined;
});

/** A server with (or without) a speech-to-text provider; `transcribe` answers the upload. */
function server(options: { transcription: boolean; maxSeconds?: number; transcribe?: (body: FormData, url: string) => Promise<Response> | Response }) {
  return fakeFetch(async (url, init) => {
    if (url === '/api/public/voice') return json(200, { success: true, data: { transcription: options.transcription, maxSeconds: options.maxSeconds ?? 60, maxBytes: 2097152 } });
    if (url.startsWith('/api/voice/transcriptions') && init.method === 'POST' && options.transcribe) return options.transcribe(init.body as FormData, url);
    throw new TypeError('Failed to fetch');
  });
}

describe('voice input without SpeechRecognition (recorded, transcribed by the server)', () => {
  it('records with MediaRecorder, stops on a second press, shows "Transcribing…", then puts the text in the box', async () => {
    ({ uninstall } = installFakeRecorder());
    let release!: (res: Response) => void;
    const uploads: { file: File; url: string }[] = [];
    const { fetch, calls } = server({
      transcription: true,
      transcribe: (body, url) => {
        uploads.push({ file: body.get('file') as File, url });
        return new Promise<Response>((resolve) => (release = resolve));
      },
    });
    const { user } = renderChat({ fetch });
    await user.type(input(), 'Hello');
    await user.click(await screen.findByRole('button', { name: 'Start voice input' }));
    expect(await screen.findByText('Recording... Speak now in English')).toHaveClass('recording-banner');
    expect(FakeMediaRecorder.latest().state).toBe('recording');
    expect(FakeMediaRecorder.latest().mimeType).toBe('audio/webm;codecs=opus');
    await user.click(screen.getByRole('button', { name: 'Stop voice input' }));
    expect(await screen.findByText('Transcribing…')).toHaveAttribute('role', 'status');
    expect(input()).toBeDisabled();
    expect(uploads).toHaveLength(1);
    expect(uploads[0].url).toBe('/api/voice/transcriptions?language=en');
    expect(uploads[0].file.name).toBe('recording.webm');
    expect(uploads[0].file.type).toBe('audio/webm;codecs=opus');
    const bytes = await new Promise<ArrayBuffer>((resolve) => {
      const reader = new FileReader();
      reader.onload = () => resolve(reader.result as ArrayBuffer);
      reader.readAsArrayBuffer(uploads[0].file);
    });
    expect(new Uint8Array(bytes)).toEqual(FAKE_WEBM);
    expect(calls.filter((c) => c.url === '/api/public/voice')).toHaveLength(1);
    release(json(200, { success: true, data: { text: 'how do I reset my password', seconds: 2 } }));
    await waitFor(() => expect(input()).toHaveValue('Hello how do I reset my password'));
    expect(screen.queryByText('Transcribing…')).not.toBeInTheDocument();
    expect(input()).toBeEnabled();
  });

  it('stops by itself at the server limit', async () => {
    ({ uninstall } = installFakeRecorder());
    const { fetch } = server({ transcription: true, maxSeconds: 1, transcribe: () => json(200, { success: true, data: { text: 'short one', seconds: 1 } }) });
    const { user } = renderChat({ fetch });
    await user.click(await screen.findByRole('button', { name: 'Start voice input' }));
    expect(FakeMediaRecorder.latest().state).toBe('recording');
    await waitFor(() => expect(input()).toHaveValue('short one'), { timeout: 3000 });
    expect(FakeMediaRecorder.latest().state).toBe('inactive');
  });

  it('says "Transcribing…" in the chosen language', async () => {
    ({ uninstall } = installFakeRecorder());
    const { fetch } = server({ transcription: true, transcribe: () => new Promise<Response>(() => undefined) });
    const { user } = renderChat({ fetch });
    await user.selectOptions(screen.getByRole('combobox', { name: 'Language' }), 'de');
    const de = stringsFor('de').voice;
    await user.click(await screen.findByRole('button', { name: de.start }));
    await user.click(await screen.findByRole('button', { name: de.stop }));
    expect(await screen.findByText(de.transcribing)).toBeInTheDocument();
  });

  it('a failed transcription says so in the page and leaves the box as it was', async () => {
    ({ uninstall } = installFakeRecorder());
    const { fetch } = server({ transcription: true, transcribe: () => json(502, { success: false, error: { code: 'provider_error', message: 'Speech to text failed' } }) });
    const { user } = renderChat({ fetch });
    await user.click(await screen.findByRole('button', { name: 'Start voice input' }));
    await user.click(await screen.findByRole('button', { name: 'Stop voice input' }));
    expect(await screen.findByText(stringsFor('en').voice.transcribeFailed)).toBeInTheDocument();
    expect(input()).toHaveValue('');
  });

  it('a denied microphone says so', async () => {
    ({ uninstall } = installFakeRecorder({ deny: true }));
    const { fetch } = server({ transcription: true });
    const { user } = renderChat({ fetch });
    await user.click(await screen.findByRole('button', { name: 'Start voice input' }));
    expect(await screen.findByText('Microphone access denied. Please allow microphone access to use voice input.')).toBeInTheDocument();
  });

  it('without a provider the microphone stays hidden', async () => {
    ({ uninstall } = installFakeRecorder());
    const { fetch, calls } = server({ transcription: false });
    renderChat({ fetch });
    await waitFor(() => expect(calls.some((c) => c.url === '/api/public/voice')).toBe(true));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(screen.queryByRole('button', { name: 'Start voice input' })).not.toBeInTheDocument();
  });

  it('without MediaRecorder the microphone stays hidden and the server is not asked', async () => {
    const { fetch, calls } = server({ transcription: true });
    renderChat({ fetch });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(screen.queryByRole('button', { name: 'Start voice input' })).not.toBeInTheDocument();
    expect(calls.some((c) => c.url === '/api/public/voice')).toBe(false);
  });
});
