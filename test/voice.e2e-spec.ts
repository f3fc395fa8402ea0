/**
 * Voice without browser speech recognition, through the real app and the mock LLM server's
 * /v1/audio/transcriptions: the speech-to-text setting (key encrypted, masked, audited as
 * "changed", owners and admins only), whether it is set (public), and the transcription route:
 * a recording reaches the provider as valid audio and its text comes back, each call a usage event
 * with its cost; no provider, a 10 MB upload, a non-audio upload, a recording over 60 s, a provider
 * failure, a foreign origin and a widget's origin lock each get a clear 4xx/5xx JSON answer.
 */
import request from 'supertest';
import { AdminUsersService } from '../src/auth/admin-users.service';
import { UsageEvent } from '../src/analytics/usage-event.entity';
import { speechCostUsd } from '../src/shared/catalog/providers';
import { VOICE_LIMITS } from '../src/shared/contracts/speech';
import { adminAgent, AdminAgent } from './support/admin-session';
import { MOCK_TRANSCRIPT, MockLlmServer, startMockLlmServer } from './support/mock-llm-server';
import { startTestApp, TestApp } from './support/test-app';
import { WIDGET_HOST, widgetSettings } from './support/widgets';

const SPEECH_KEY = 'sk-speech-key-0123456789';

/** A mono 16-bit PCM WAV of `seconds` of a 440 Hz tone. */
function wav(seconds: number, sampleRate = 8000): Buffer {
  const samples = Math.round(seconds * sampleRate);
  const out = Buffer.alloc(44 + samples * 2);
  out.write('RIFF', 0, 'latin1');
  out.writeUInt32LE(36 + samples * 2, 4);
  out.write('WAVE', 8, 'latin1');
  out.write('fmt ', 12, 'latin1');
  out.writeUInt32LE(16, 16);
  out.writeUInt16LE(1, 20);
  out.writeUInt16LE(1, 22);
  out.writeUInt32LE(sampleRate, 24);
  out.writeUInt32LE(sampleRate * 2, 28);
  out.writeUInt16LE(2, 32);
  out.writeUInt16LE(16, 34);
  out.write('data', 36, 'latin1');
  out.writeUInt32LE(samples * 2, 40);
  for (let i = 0; i < samples; i++) out.writeInt16LE(Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / sampleRate)), 44 + i * 2);
  return out;
}

describe('voice transcription (mock /v1/audio/transcriptions)', () => {
  let mock: MockLlmServer;
  let t: TestApp;
  let admin: AdminAgent;

  beforeAll(async () => {
    mock = await startMockLlmServer({ validKeys: [SPEECH_KEY] });
    t = await startTestApp();
    admin = await adminAgent(t);
  });

  afterEach(() => mock.reset());

  afterAll(async () => {
    await t?.close();
    await mock?.close();
  });

  const upload = (file: Buffer, name = 'recording.wav', type = 'audio/wav') => request(t.url).post('/api/voice/transcriptions').attach('file', file, { filename: name, contentType: type });

  it('without a provider: the chat page is told, and a recording gets 503 with a clear message', async () => {
    expect((await request(t.url).get('/api/public/voice').expect(200)).body.data).toEqual({ transcription: false, maxSeconds: 60, maxBytes: VOICE_LIMITS.maxBytes });
    const res = await upload(wav(1)).expect(503);
    expect(res.body).toMatchObject({ success: false, error: { message: 'Voice input is not available here: no speech-to-text provider is set.' } });
    expect(mock.requests).toHaveLength(0);
  });

  it('the setting: owners and admins change it, the key is encrypted and masked, the audit records it only as changed', async () => {
    await t.app.get(AdminUsersService).create({ email: 'voice-viewer@example.com', name: 'Viewer', password: 'viewer password 1', role: 'viewer' });
    const viewer = request.agent(t.url);
    await viewer.post('/api/auth/login-password').send({ email: 'voice-viewer@example.com', password: 'viewer password 1' }).expect(200);
    await viewer.get('/api/config/speech').expect(403);
    await viewer.put('/api/config/speech').send({ enabled: true }).expect(403);
    await request(t.url).get('/api/config/speech').expect(401);

    const bad = await admin.put('/api/config/speech').send({ enabled: true, provider: 'openai-compatible', baseUrl: null }).expect(400);
    expect(bad.body.error.message).toMatch(/base URL/);
    expect((await admin.put('/api/config/speech').send({ provider: 'whisper' }).expect(400)).body.error.message).toMatch(/Provider must be one of openai, azure, openai-compatible/);

    const saved = await admin.put('/api/config/speech').send({ enabled: true, provider: 'openai', model: 'whisper-1', baseUrl: mock.openaiBaseUrl, apiKey: SPEECH_KEY }).expect(200);
    expect(saved.body.data).toMatchObject({ enabled: true, provider: 'openai', model: 'whisper-1', baseUrl: mock.openaiBaseUrl, apiKey: 'sk-...6789' });
    expect((await admin.get('/api/config/speech').expect(200)).body.data.apiKey).toBe('sk-...6789');
    const rows: { value: string }[] = await t.dataSource.query(t.config.databaseUrl ? 'SELECT value FROM settings WHERE key = $1' : 'SELECT value FROM settings WHERE key = ?', ['config.speech']);
    expect(rows[0].value).not.toContain(SPEECH_KEY);
    expect(JSON.parse(rows[0].value).apiKeyCipher).toMatch(/^v1:/);

    const entries = (await admin.get('/api/audit').query({ action: 'speech.update' }).expect(200)).body.data.entries as Array<{ changes: unknown[] }>;
    expect(entries[0].changes).toEqual(expect.arrayContaining([{ field: 'apiKey', secret: true }, { field: 'enabled', before: false, after: true }]));
    expect(JSON.stringify(entries)).not.toContain(SPEECH_KEY);
    // The mask sent back keeps the key.
    await admin.put('/api/config/speech').send({ apiKey: 'sk-...6789', model: 'whisper-1' }).expect(200);
    expect((await admin.put('/api/config/speech').send({ apiKey: '' }).expect(400)).body.error.message).toBe('Send at least one setting to change');
    expect((await admin.get('/api/config/speech').expect(200)).body.data.apiKey).toBe('sk-...6789');

    expect((await request(t.url).get('/api/public/voice').expect(200)).body.data.transcription).toBe(true);
  });

  it('a recording reaches the provider as valid audio, its text comes back, and the call is a usage event with its cost', async () => {
    const res = await upload(wav(3)).query({ language: 'en' }).expect(200);
    expect(res.body.data).toEqual({ text: MOCK_TRANSCRIPT, seconds: 3 });
    const [record] = mock.requests;
    expect(record).toMatchObject({ kind: 'transcription', path: '/v1/audio/transcriptions', apiKey: SPEECH_KEY, model: 'whisper-1', status: 200 });
    expect(record.audio).toMatchObject({ format: 'wav', wav: { sampleRate: 8000, channels: 1, seconds: 3 }, fileName: 'recording.wav', language: 'en' });

    const events = await t.dataSource.getRepository(UsageEvent).findBy({ kind: 'speech' });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ provider: 'openai', model: 'whisper-1', status: 'success', channel: 'rest', language: 'en' });
    expect(events[0].costUsd).toBeCloseTo(speechCostUsd('openai', 'whisper-1', 3), 10);
    expect(events[0].costUsd).toBeCloseTo((3 / 60) * 0.006, 10);
  });

  it('a 10 MB upload is 413 and never reaches the provider', async () => {
    const res = await upload(Buffer.concat([wav(1), Buffer.alloc(10 * 1024 * 1024)])).expect(413);
    expect(res.body).toMatchObject({ success: false, error: { code: 'payload_too_large', message: 'The recording is larger than 2 MB, the most one transcription takes.' } });
    expect(mock.requests).toHaveLength(0);
  });

  it('a non-audio upload is 415 even when named and typed as audio; a JSON body is 415', async () => {
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
    for (const file of [png, Buffer.from('just some text, not a recording')]) {
      const res = await upload(file, 'recording.wav', 'audio/wav').expect(415);
      expect(res.body.error.message).toBe('The upload is not an audio recording: send WAV, WebM, Ogg, MP3, MP4/M4A or FLAC audio.');
    }
    const json = await request(t.url).post('/api/voice/transcriptions').send({ file: 'UklGRg==' }).expect(415);
    expect(json.body.error.message).toMatch(/multipart\/form-data/);
    await request(t.url).post('/api/voice/transcriptions').field('note', 'no file').expect(400);
    expect(mock.requests).toHaveLength(0);
  });

  it('a recording over 60 seconds is 400 with its length', async () => {
    const long = wav(61);
    expect(long.length).toBeLessThan(VOICE_LIMITS.maxBytes);
    const res = await upload(long).expect(400);
    expect(res.body.error.message).toBe('The recording is 61 seconds long; at most 60 seconds are transcribed.');
    expect(mock.requests).toHaveLength(0);
  });

  it('a provider failure is a clear 502 (503 when it rate limits), never a 500, and an error usage event without cost', async () => {
    mock.configure({ transcription: { status: 500 } });
    const failed = await upload(wav(1)).expect(502);
    expect(failed.body.error).toMatchObject({ code: 'provider_error' });
    expect(failed.body.error.message).toMatch(/^Speech to text failed: .*Please try again or type your question\.$/);
    mock.configure({ transcription: { status: 429 } });
    expect((await upload(wav(1)).expect(503)).body.error.code).toBe('provider_rate_limited');
    const errors = await t.dataSource.getRepository(UsageEvent).findBy({ kind: 'speech', status: 'error' });
    expect(errors).toHaveLength(2);
    expect(errors.every((e) => e.costUsd === 0)).toBe(true);
  });

  it('origins: a foreign page is 403; the widget iframe (same origin, X-Widget-Id) is counted per widget; an unknown or deleted widget is 404', async () => {
    await upload(wav(1)).set('Origin', 'https://evil.example').expect(403);
    await upload(wav(1)).set('X-Widget-Id', 'x').set('Origin', WIDGET_HOST).set('Sec-Fetch-Site', 'cross-site').expect(403);
    const widgetId = (await admin.post('/api/widgets').send(widgetSettings()).expect(201)).body.data.widget.id as string;
    const allowed = await upload(wav(1)).set('X-Widget-Id', widgetId).set('Origin', t.url).set('Sec-Fetch-Site', 'same-origin').expect(200);
    expect(allowed.body.data.text).toBe(MOCK_TRANSCRIPT);
    const events = await t.dataSource.getRepository(UsageEvent).findBy({ kind: 'speech', widgetId });
    expect(events).toHaveLength(1);
    const unknown = await upload(wav(1)).set('X-Widget-Id', '00000000-0000-4000-8000-000000000000').expect(404);
    expect(unknown.body.success).toBe(false);
    await admin.delete(`/api/widgets/${widgetId}`).expect(200);
    await upload(wav(1)).set('X-Widget-Id', widgetId).expect(404);
    expect(mock.requests).toHaveLength(1);
  });

  it('visitors are rate limited (429 with Retry-After)', async () => {
    const agent = request.agent(t.url);
    let limited: request.Response | undefined;
    for (let i = 0; i < 12 && !limited; i++) {
      const res = await agent.post('/api/voice/transcriptions').attach('file', wav(0.2), { filename: 'r.wav', contentType: 'audio/wav' });
      if (res.status === 429) limited = res;
      else expect(res.status).toBe(200);
    }
    expect(limited?.headers['retry-after']).toMatch(/^\d+$/);
    expect(limited?.body.error.message).toBe('Too many recordings. Please wait a moment.');
  });
});
