/**
 * Fault matrix: a 10 MB text attachment uploaded while visitors chat, on the embedded database
 * (SQLite). Chats must not wait behind the upload: reads have their own connections and the
 * item is indexed in short slices, and an oversized body is refused before it is parsed.
 *
 * Checked here: chat p99 under 1 s while the upload is indexed (baseline before it printed
 * beside it; on a machine where the baseline p99 is already over 0.4 s, under 2.5 times it), `/health` answered without a stall over 0.5 s, a half-indexed item never cited
 * (a question only the new attachment answers cites it after the upload, never during), and a
 * 60 MB body refused with 413 quickly without `/health` stalls. Always on SQLite, whatever
 * DATABASE_URL the suite runs with.
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { chatOverSocket, ClientSocket, connectClient } from '../support/test-app';
import { ServerProcess, startServerProcess } from './support/server-process';

const ADMIN = 'upload-admin@example.com';
const PASSWORD = 'upload admin password 123';
const MARKER = 'quokkafrost';
const MARKER_QUESTION = `How do I file a ${MARKER} warranty claim?`;
const QUESTIONS = ['How many vacation days do I get?', 'How do I reset my password?', 'How long does shipping take?'];
const VERTICALS = ['hr', 'customer-service', 'customer-service'];

/** ~`bytes` of prose over a vocabulary of a few thousand made-up words (many index terms), the marker in every paragraph. */
function largeText(bytes: number): string {
  let seed = 42;
  const random = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
  const syllables = ['ka', 'lo', 'mi', 'ren', 'tas', 'vo', 'quin', 'dor', 'pel', 'sut', 'ar', 'ex', 'um', 'bri', 'zo'];
  const vocabulary = Array.from({ length: 4000 }, () => Array.from({ length: 2 + Math.floor(random() * 3) }, () => syllables[Math.floor(random() * syllables.length)]).join(''));
  const common = ['the', 'warranty', 'claim', 'order', 'customer', 'refund', 'within', 'days', 'form', 'receipt', 'support', 'team'];
  const parts: string[] = [];
  let size = 0;
  for (let p = 0; size < bytes; p += 1) {
    const sentences: string[] = [];
    for (let s = 0; s < 6; s += 1) {
      const words = Array.from({ length: 12 + Math.floor(random() * 10) }, (_, w) => (w % 3 === 0 ? common[Math.floor(random() * common.length)] : vocabulary[Math.floor(random() * vocabulary.length)]));
      if (s === 0) words.splice(3, 0, MARKER);
      sentences.push(`${words.join(' ')}.`);
    }
    const paragraph = `${sentences.join(' ')}\n\n`;
    parts.push(paragraph);
    size += paragraph.length;
  }
  return parts.join('');
}

function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

const ms = (v: number) => `${Math.round(v)} ms`;

/**
 * POSTs a JSON body from a child process: sending 10 MB from this process blocks its event loop
 * for a few hundred ms, which the chat loop measured here would count against the server.
 */
function postFromChild(url: string, cookie: string, body: string, timeoutMs: number): Promise<{ status: number; text: string; at: number }> {
  const file = path.join(os.tmpdir(), `sa-upload-body-${process.pid}-${Date.now()}.json`);
  fs.writeFileSync(file, body);
  const script = `
    const fs = require('node:fs');
    const [url, cookie, file, timeout] = process.argv.slice(1);
    fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', cookie }, body: fs.readFileSync(file), signal: AbortSignal.timeout(Number(timeout)) })
      .then(async (r) => { const at = Date.now(); process.stdout.write(JSON.stringify({ status: r.status, at, text: await r.text() })); })
      .catch((e) => { process.stderr.write(String(e)); process.exit(1); });`;
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['-e', script, url, cookie, file, String(timeoutMs)], { maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      fs.rmSync(file, { force: true });
      if (error) reject(new Error(`upload failed: ${stderr || error.message}`));
      else resolve(JSON.parse(stdout) as { status: number; text: string; at: number });
    });
  });
}

/** /health polled every 100 ms: the time each answer took. */
function pollHealth(url: string): { stop(): Promise<number[]> } {
  const times: number[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      try {
        await fetch(`${url}/health`, { signal: AbortSignal.timeout(20_000) }).then((r) => r.arrayBuffer());
      } catch {
        /* counted by its time */
      }
      times.push(performance.now() - started);
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return times;
    },
  };
}

/** Chats one after another on each socket until stopped: each one's time to chat:done, and the sources of the marker question. */
function chatLoop(sockets: ClientSocket[], onMarker?: (cited: boolean, at: number) => void): { stop(): Promise<number[]>; startedAt: number[] } {
  const times: number[] = [];
  const startedAt: number[] = [];
  let running = true;
  const loops = sockets.map(async (socket, s) => {
    for (let i = 0; running; i += 1) {
      const marker = onMarker !== undefined && s === 0;
      const q = (s + i) % QUESTIONS.length;
      const started = performance.now();
      const r = await chatOverSocket(socket, marker ? { vertical: 'customer-service', query: MARKER_QUESTION } : { vertical: VERTICALS[q] as 'hr', query: QUESTIONS[q] }, 30_000);
      times.push(performance.now() - started);
      startedAt.push(Date.now() - (performance.now() - started));
      if (!r.done) throw new Error(`chat failed: ${JSON.stringify(r.error ?? r.ack)}`);
      if (marker) onMarker!(r.done.sources.some((source) => source.title === 'Quokkafrost warranty handbook'), Date.now());
      await new Promise((res) => setTimeout(res, 20));
    }
  });
  return {
    startedAt,
    async stop() {
      running = false;
      await Promise.all(loops);
      return times;
    },
  };
}

describe('a 10 MB upload while chatting on SQLite', () => {
  let server: ServerProcess;
  let dataDir: string;
  let cookie = '';
  let sockets: ClientSocket[] = [];

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sa-upload-'));
    server = await startServerProcess({
      DATA_DIR: dataDir,
      DATABASE_URL: '',
      DATABASE_SCHEMA: '',
      REDIS_URL: '',
      ADMIN_EMAIL: ADMIN,
      ADMIN_PASSWORD: PASSWORD,
    });
    const signIn = await fetch(`${server.url}/api/auth/login-password`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: ADMIN, password: PASSWORD }),
    });
    cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0];
    sockets = await Promise.all([0, 1, 2].map(() => connectClient(server.url)));
  }, 90_000);

  afterAll(async () => {
    sockets.forEach((s) => s.close());
    server.kill('SIGTERM');
    await server.exited;
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps chat p99 under 1 s and /health under 0.5 s while a 10 MB attachment is indexed, and never cites the half-indexed item', async () => {
    const url = server.url;
    // Baseline: the same chat loop, no upload.
    const warm = chatLoop(sockets);
    await new Promise((r) => setTimeout(r, 3000));
    const before = await warm.stop();

    const text = largeText(10 * 1024 * 1024 - 4096);
    const body = JSON.stringify({
      title: 'Quokkafrost warranty handbook',
      content: `How to file a ${MARKER} warranty claim.`,
      category: 'Warranty',
      vertical: 'customer-service',
      tags: [],
      attachments: [{ name: 'handbook.txt', type: 'text/plain', content: text }],
    });
    const marks: { cited: boolean; at: number }[] = [];
    const health = pollHealth(url);
    const chats = chatLoop(sockets, (cited, at) => marks.push({ cited, at }));
    await new Promise((r) => setTimeout(r, 500));
    const uploadStarted = Date.now();
    const res = await postFromChild(`${url}/api/knowledge`, cookie, body, 300_000);
    // When the answer arrived (the child's clock is this machine's), not when the child exited.
    const uploadDone = res.at;
    const during = await chats.stop();
    const healthTimes = await health.stop();
    expect(res.status).toBe(201);

    const citedEarly = marks.filter((m) => m.cited && m.at < uploadStarted + 50).length;
    const after = await chatOverSocket(sockets[0], { vertical: 'customer-service', query: MARKER_QUESTION });
    const citedAfter = after.done?.sources.some((s) => s.title === 'Quokkafrost warranty handbook') ?? false;
    const marksDuring = marks.filter((m) => m.at > uploadStarted && m.at < uploadDone);
    const slowest = during
      .map((t, i) => ({ t, at: chats.startedAt[i] - uploadStarted }))
      .sort((a, b) => b.t - a.t)
      .slice(0, 3)
      .map((c) => `${ms(c.t)} at ${(c.at / 1000).toFixed(1)} s`);

    console.log(
      `10 MB upload on SQLite: stored and indexed in ${((uploadDone - uploadStarted) / 1000).toFixed(1)} s; ` +
        `chat before p50 ${ms(percentile(before, 50))} p99 ${ms(percentile(before, 99))} (${before.length} chats) | ` +
        `during p50 ${ms(percentile(during, 50))} p99 ${ms(percentile(during, 99))} max ${ms(Math.max(...during))} (${during.length} chats; slowest: ${slowest.join(', ')}); ` +
        `/health p99 ${ms(percentile(healthTimes, 99))} max ${ms(Math.max(...healthTimes))}, ${healthTimes.filter((t) => t > 500).length} of ${healthTimes.length} over 500 ms; ` +
        `marker question during the upload cited the item ${marksDuring.filter((m) => m.cited).length}/${marksDuring.length} times, after: ${citedAfter}`,
    );
    expect(citedEarly).toBe(0);
    expect(marksDuring.filter((m) => m.cited)).toEqual([]);
    expect(citedAfter).toBe(true);
    // The goal is 1 s. On a machine so busy that chats already take over 0.4 s p99 without any
    // upload (2 shared cores), the bound is 2.5 times that baseline (before the fix: 8.0 s against 0.41 s).
    // (The upload is sent from a child process: sent from here, it stalled this process's chat
    // loop at the upload's start, and CI once measured 1,007 ms there against a 1,004 ms bound.)
    expect(percentile(during, 99)).toBeLessThan(Math.max(1000, 2.5 * percentile(before, 99)));
    // 2 shared cores: a process can wait its turn for 0.2-0.3 s whatever it does; 99% under 0.5 s.
    expect(percentile(healthTimes, 99)).toBeLessThan(500);
  }, 300_000);

  it('refuses a 60 MB body with a clear 413 quickly, without /health stalls', async () => {
    const url = server.url;
    // Built before /health is polled: serialising 60 MB here blocks this process, not the server.
    const body = JSON.stringify({
      title: 'Too large',
      content: '',
      vertical: 'customer-service',
      // Six text files of 10 MB, each within the per-file limit.
      attachments: Array.from({ length: 6 }, (_, i) => ({ name: `part-${i}.txt`, type: 'text/plain', content: 'refund policy words '.repeat(512 * 1024 - 1) })),
    });
    const health = pollHealth(url);
    await new Promise((r) => setTimeout(r, 300));
    const started = performance.now();
    // From a child process, like the 10 MB upload: sending 60 MB from here stalled this process's own /health polling.
    const res = await postFromChild(`${url}/api/knowledge`, cookie, body, 60_000);
    const answer = JSON.parse(res.text) as { error?: { code: string; message: string } };
    const took = performance.now() - started;
    await new Promise((r) => setTimeout(r, 300));
    const healthTimes = await health.stop();
    console.log(
      `${(body.length / 1048576).toFixed(0)} MB body: ${res.status} ${answer.error?.code} "${answer.error?.message}" in ${ms(took)}; ` +
        `/health max ${ms(Math.max(...healthTimes))}, ${healthTimes.filter((t) => t > 500).length} of ${healthTimes.length} over 500 ms`,
    );
    expect(res.status).toBe(413);
    expect(answer.error?.code).toBe('payload_too_large');
    expect(answer.error?.message).toMatch(/at most 32 MB/);
    expect(took).toBeLessThan(5000);
    expect(Math.max(...healthTimes)).toBeLessThan(500);
  }, 120_000);
});
