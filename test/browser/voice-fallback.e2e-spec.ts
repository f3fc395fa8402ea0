/**
 * Voice without browser speech recognition, in Chromium: SpeechRecognition is removed by an init
 * script (as in Firefox) and the fake microphone plays a WAV spoken by espeak-ng
 * (--use-fake-device-for-media-stream --use-file-for-fake-audio-capture). With a speech-to-text
 * provider set (the mock LLM server), the microphone records with MediaRecorder, the mock receives
 * a valid audio upload, "Transcribing…" shows, and the mock's text lands in the box. With no
 * provider the microphone is hidden.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { readAudioFile } from '../../src/speech/audio-file';
import { adminAgent, type AdminAgent } from '../support/admin-session';
import { MOCK_TRANSCRIPT, startMockLlmServer, type MockLlmServer } from '../support/mock-llm-server';
import { describeWith, ESPEAK_NG, NEEDS } from '../support/requirements';
import { startTestApp, type TestApp } from '../support/test-app';
import { assertClientBuilt, CHROMIUM_PATH } from './support/browser';
import { contextOptions, type BrowserGlobals } from './support/chat-page';

const SPOKEN = 'how do I reset my password';

/** Runs before the page's scripts: this browser has no speech recognition. */
const NO_SPEECH_RECOGNITION = `
  for (const name of ['SpeechRecognition', 'webkitSpeechRecognition']) {
    try { delete window[name]; } catch {}
    if (name in window) Object.defineProperty(window, name, { value: undefined, configurable: true, writable: true });
  }
`;

describeWith([NEEDS.chromium, NEEDS.espeakNg], 'voice fallback in Chromium (no SpeechRecognition, fake microphone)', () => {
  let dir: string;
  let browser: Browser;
  let mock: MockLlmServer;
  let t: TestApp;
  let admin: AdminAgent;

  beforeAll(async () => {
    assertClientBuilt();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'voice-fallback-'));
    const wav = path.join(dir, 'question.wav');
    execFileSync(ESPEAK_NG, ['-w', wav, SPOKEN]);
    expect(readAudioFile(fs.readFileSync(wav))).toMatchObject({ format: 'wav' });
    browser = await chromium.launch({
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--no-first-run',
        '--use-fake-ui-for-media-stream',
        '--use-fake-device-for-media-stream',
        `--use-file-for-fake-audio-capture=${wav}`,
      ],
    });
    mock = await startMockLlmServer();
    t = await startTestApp({ openaiApiKey: 'sk-x', openaiBaseUrl: mock.openaiBaseUrl });
    admin = await adminAgent(t);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await mock?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  /** The chat page without speech recognition, once it has asked whether recordings can be transcribed. */
  async function openChat(): Promise<Page> {
    const context = await browser.newContext(contextOptions('desktop'));
    await context.addInitScript(NO_SPEECH_RECOGNITION);
    const page = await context.newPage();
    const asked = page.waitForResponse((res) => res.url().endsWith('/api/public/voice'));
    await page.goto(t.url);
    await page.locator('.connection-pill[data-status="online"]').waitFor({ timeout: 10000 });
    await asked;
    const globals = await page.evaluate(() => {
      const w = globalThis as unknown as { webkitSpeechRecognition?: unknown; SpeechRecognition?: unknown; MediaRecorder?: unknown };
      return { speech: w.webkitSpeechRecognition !== undefined || w.SpeechRecognition !== undefined, recorder: typeof w.MediaRecorder };
    });
    expect(globals).toEqual({ speech: false, recorder: 'function' });
    return page;
  }

  it('with no provider the microphone is hidden', async () => {
    const page = await openChat();
    await page.getByRole('textbox', { name: 'Your message' }).waitFor();
    expect(await page.getByRole('button', { name: 'Start voice input' }).count()).toBe(0);
    await page.context().close();
  });

  it('with a provider: records the fake microphone, the mock receives valid audio, "Transcribing…" shows, and the text lands in the box', async () => {
    await admin.put('/api/config/speech').send({ enabled: true, provider: 'openai-compatible', model: 'whisper-1', baseUrl: mock.openaiBaseUrl }).expect(200);
    mock.configure({ transcription: { delayMs: 700 } });
    const page = await openChat();
    const input = page.getByRole('textbox', { name: 'Your message' });
    await page.getByRole('button', { name: 'Start voice input' }).click();
    await page.getByText('Recording... Speak now in English').waitFor();
    expect(await input.isDisabled()).toBe(true);
    // Let the fake microphone play (espeak's sentence is about two seconds).
    await page.waitForTimeout(2500);
    await page.getByRole('button', { name: 'Stop voice input' }).click();
    await page.getByText('Transcribing…').waitFor();
    await page.waitForFunction(() => (globalThis as unknown as BrowserGlobals).document.querySelector('.composer textarea')?.value === 'how do I reset my password', undefined, { timeout: 10000 });
    expect(await input.inputValue()).toBe(MOCK_TRANSCRIPT);
    expect(await page.getByText('Transcribing…').count()).toBe(0);

    const uploads = mock.requests.filter((r) => r.kind === 'transcription');
    expect(uploads).toHaveLength(1);
    const audio = uploads[0].audio!;
    expect(audio).toMatchObject({ format: 'webm', fileName: 'recording.webm', language: 'en' });
    expect(audio.contentType).toMatch(/^audio\/webm/);
    expect(uploads[0].status).toBe(200);
    // The recording is real audio of the length played: the server reads its blocks' times.
    const read = readAudioFile(audio.data!);
    expect(read?.format).toBe('webm');
    expect(read?.seconds).toBeGreaterThan(1.5);
    expect(read?.seconds).toBeLessThan(10);
    await page.context().close();
  }, 60_000);
});
