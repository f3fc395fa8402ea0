/**
 * Steady chat traffic for the fault tests: sockets and /interact callers that each ask one
 * question after another until stopped, counting what was answered, what failed and how.
 */
import { chatOverSocket, ClientSocket, connectClient } from '../../support/test-app';

export interface LoadResult {
  sent: number;
  answered: number;
  /** error code -> count (socket `chat:error`, HTTP error envelope, or a transport failure). */
  failures: Record<string, number>;
  /** Reply ids of the answered chats. */
  replyIds: string[];
}

export interface ChatLoad {
  /** Results so far (live). */
  readonly result: LoadResult;
  stop(): Promise<LoadResult>;
}

/** Loads not stopped yet: a test that fails before its own stop() would leave them running and jest hanging. */
const active = new Set<ChatLoad>();
afterAll(async () => {
  await Promise.all([...active].map((load) => load.stop()));
});

const QUESTIONS = ['How many vacation days do I get?', 'How do I reset my password?', 'How long does shipping take?', 'How do I handle a price objection?'];
const VERTICALS = ['hr', 'customer-service', 'customer-service', 'sales'] as const;

export async function startChatLoad(url: string, options: { sockets: number; rest: number; pauseMs?: number }): Promise<ChatLoad> {
  const result: LoadResult = { sent: 0, answered: 0, failures: {}, replyIds: [] };
  const fail = (code: string) => (result.failures[code] = (result.failures[code] ?? 0) + 1);
  let running = true;
  const pause = () => new Promise((r) => setTimeout(r, options.pauseMs ?? 20));
  const sockets: ClientSocket[] = await Promise.all(Array.from({ length: options.sockets }, () => connectClient(url)));
  const loops: Promise<void>[] = [];
  sockets.forEach((socket, s) =>
    loops.push(
      (async () => {
        for (let i = 0; running; i += 1) {
          const q = (s + i) % QUESTIONS.length;
          result.sent += 1;
          try {
            const r = await chatOverSocket(socket, { vertical: VERTICALS[q], query: QUESTIONS[q] }, 30_000);
            if (r.done) {
              result.answered += 1;
              if (r.done.replyId) result.replyIds.push(r.done.replyId);
            } else fail(r.error?.code ?? (r.ack.accepted ? 'no_reply' : r.ack.error.code));
          } catch {
            fail('socket_timeout');
          }
          await pause();
        }
      })(),
    ),
  );
  for (let c = 0; c < options.rest; c += 1) {
    loops.push(
      (async () => {
        for (let i = 0; running; i += 1) {
          const q = (c + i) % QUESTIONS.length;
          result.sent += 1;
          try {
            const res = await fetch(`${url}/interact`, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({ vertical: VERTICALS[q], query: QUESTIONS[q] }),
              signal: AbortSignal.timeout(30_000),
            });
            const body = (await res.json()) as { success: boolean; data?: { replyId?: string }; error?: { code: string } };
            if (res.status === 200 && body.success) {
              result.answered += 1;
              if (body.data?.replyId) result.replyIds.push(body.data.replyId);
            } else fail(`${res.status} ${body.error?.code ?? 'unknown'}`);
          } catch {
            fail('http_failure');
          }
          await pause();
        }
      })(),
    );
  }
  const load: ChatLoad = {
    result,
    async stop() {
      running = false;
      active.delete(load);
      await Promise.all(loops);
      sockets.forEach((s) => s.close());
      return result;
    },
  };
  active.add(load);
  return load;
}

export function describeLoad(r: LoadResult): string {
  const pct = r.sent === 0 ? 'n/a' : `${((100 * r.answered) / r.sent).toFixed(2)} %`;
  const failures = Object.entries(r.failures).map(([code, n]) => `${code} ${n}`).join(', ');
  return `${r.answered}/${r.sent} answered (${pct})${failures ? `; failed: ${failures}` : ''}`;
}
