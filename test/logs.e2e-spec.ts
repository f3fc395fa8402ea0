import request from 'supertest';
import { MockLlmServer, startMockLlmServer } from './support/mock-llm-server';
import { startTestApp, TestApp } from './support/test-app';

/** Lines the app wrote to stdout and stderr while `fn` ran, parsed as JSON where they are. */
async function captureLines(fn: () => Promise<void>): Promise<string[]> {
  const lines: string[] = [];
  const originals = { out: process.stdout.write.bind(process.stdout), err: process.stderr.write.bind(process.stderr) };
  const grab = (chunk: string | Uint8Array): boolean => {
    lines.push(...String(chunk).split('\n').filter((l) => l.trim() !== ''));
    return true;
  };
  process.stdout.write = grab as typeof process.stdout.write;
  process.stderr.write = grab as typeof process.stderr.write;
  try {
    await fn();
  } finally {
    process.stdout.write = originals.out;
    process.stderr.write = originals.err;
  }
  return lines;
}

describe('logs', () => {
  let mock: MockLlmServer;

  beforeAll(async () => {
    mock = await startMockLlmServer({ tokens: 3, delayMs: 1 });
  });
  afterAll(async () => mock?.close());

  describe('LOG_FORMAT=json', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp({ logFormat: 'json', logLevel: 'log', openaiApiKey: 'sk-test', openaiBaseUrl: mock.openaiBaseUrl });
    });
    afterAll(async () => t?.close());

    it('writes one JSON object per line, and a failed reply names its request and reply ids', async () => {
      mock.configure({ status: 500 });
      let replyId = '';
      const lines = await captureLines(async () => {
        const res = await request(t.url)
          .post('/interact')
          .set('X-Request-Id', 'log-test-1')
          .set('Accept', 'text/event-stream')
          .send({ query: 'How long does shipping take?', vertical: 'customer-service' });
        replyId = /"replyId":"([^"]+)"/.exec(res.text)?.[1] ?? '';
      });
      mock.reset();
      expect(replyId).not.toBe('');
      const objects = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
      const failed = objects.find((o) => String(o.message).startsWith('Reply failed'));
      expect(failed).toMatchObject({ level: 'warn', context: 'ChatService', requestId: 'log-test-1', replyId });
    });
  });

  describe('LOG_FORMAT=text', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp({ logFormat: 'text', logLevel: 'log', openaiApiKey: 'sk-test', openaiBaseUrl: mock.openaiBaseUrl });
    });
    afterAll(async () => t?.close());

    it('writes readable lines with the ids after the context', async () => {
      mock.configure({ status: 500 });
      const lines = await captureLines(async () => {
        await request(t.url).post('/interact').set('X-Request-Id', 'log-test-2').send({ query: 'How long does shipping take?', vertical: 'customer-service' });
      });
      mock.reset();
      const failed = lines.find((line) => line.includes('Reply failed'));
      expect(failed).toMatch(/WARN.*\[ChatService\] \(req log-test-2 reply [\w-]+\) Reply failed/);
      expect(() => JSON.parse(failed!)).toThrow();
    });
  });
});
