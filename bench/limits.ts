/**
 * Limits benchmark: the time the chat rate limits and the budget check add before the first token.
 *
 *   npx ts-node --transpile-only bench/limits.ts      (REDIS_URL set: also with Redis)
 *
 * Everything a chat message does before its provider call for the rate limits and budgets, on the real app
 * (startTestApp: temporary SQLite, the limits module as wired), measured per message:
 *  - limiter: ChatLimitsService.admitMessage for a socket message (per-socket, visitor and IP
 *    windows, minute and hour, then the visitor's concurrent-reply lease) and the lease's release;
 *  - budget: BudgetService.admit for a paid agent with a global budget (tokens per visitor per day
 *    on: one more read), i.e. the worst-case estimate of a ~1,500-token prompt and the hold;
 *    plus settle (after the reply, not before the first token: reported apart).
 * Side by side in one run: embedded (memory counters and ledger) and, with REDIS_URL, Redis (the
 * shared counters and the Lua hold), p50 and p99 over BENCH_LIMITS_N sequential messages (default
 * 3000, after 300 warm-up), each from a new visitor on 50 sockets of 20 IPs. Goals (reported, not
 * asserted): added TTFT p50 <= 0.5 ms embedded, <= 1 ms with Redis.
 */
import { randomBytes } from 'node:crypto';
import { AgentConfigService } from '../src/agents/agent-config.service';
import type { AgentDefinition } from '../src/agents/agent.types';
import { BudgetService, estimatePromptTokens, worstCaseCost } from '../src/limits/budget.service';
import { ChatLimitsService } from '../src/limits/chat-limits.service';
import { priceFor } from '../src/shared/catalog/providers';
import { startTestApp, type TestApp } from '../test/support/test-app';

const N = Number(process.env.BENCH_LIMITS_N ?? 3000);
const WARMUP = 300;

const AGENT: AgentDefinition = {
  agentId: 'customer-service-agent',
  agentName: 'Bench agent',
  vertical: 'customer-service',
  enabled: true,
  systemPrompt: 'You are a support agent.',
  timeout: 30_000,
  model: 'gpt-4o-mini',
  temperature: 0.7,
  maxTokens: 500,
  connection: { provider: 'openai' },
};

/** A prompt of the usual size: system prompt, 4 passages, a question (~1,500 tokens). */
const PASSAGE = 'To reset your password open Settings, choose Security and follow the link we send to your address. '.repeat(30);
const MESSAGES = [
  { role: 'system' as const, content: `You are a support agent.\n${[1, 2, 3, 4].map((i) => `[${i}] ${PASSAGE}`).join('\n')}` },
  { role: 'user' as const, content: 'How do I reset my password?' },
];

interface Figures {
  limiter: number[];
  budget: number[];
  both: number[];
  settle: number[];
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function measure(t: TestApp): Promise<Figures> {
  await t.app.get(AgentConfigService).updateGlobal({
    budgets: { list: [{ scope: 'global', monthlyUsd: 1_000_000, softPercent: 80, onCap: 'refuse' }], visitorDailyTokens: 1_000_000 },
  });
  const limits = t.app.get(ChatLimitsService);
  const budgets = t.app.get(BudgetService);
  const sockets = Array.from({ length: 50 }, () => randomBytes(8).toString('hex'));
  const figures: Figures = { limiter: [], budget: [], both: [], settle: [] };
  for (let i = 0; i < WARMUP + N; i += 1) {
    const visitorKey = randomBytes(16).toString('hex');
    const t0 = performance.now();
    const slot = await limits.admitMessage({ channel: 'socket', ip: `10.0.0.${i % 20}`, visitorKey, socketId: sockets[i % sockets.length] });
    const t1 = performance.now();
    const admission = await budgets.admit({
      agent: AGENT,
      vertical: 'customer-service',
      visitorKey,
      language: 'en',
      channel: 'socket',
      worstCaseUsd: worstCaseCost(priceFor('openai', AGENT.model), estimatePromptTokens(MESSAGES), AGENT.maxTokens),
    });
    const t2 = performance.now();
    await admission.settle(0.0003, 1500);
    slot.release();
    const t3 = performance.now();
    if (i < WARMUP) continue;
    figures.limiter.push(t1 - t0);
    figures.budget.push(t2 - t1);
    figures.both.push(t2 - t0);
    figures.settle.push(t3 - t2);
  }
  return figures;
}

function row(label: string, values: number[]): string {
  return `${label.padEnd(44)} ${percentile(values, 50).toFixed(3).padStart(8)} ${percentile(values, 99).toFixed(3).padStart(8)}`;
}

async function main(): Promise<void> {
  const runs: { name: string; figures: Figures }[] = [];
  for (const mode of ['embedded', 'redis'] as const) {
    if (mode === 'redis' && !process.env.REDIS_URL) {
      console.error('REDIS_URL unset: the Redis column is skipped');
      continue;
    }
    process.stderr.write(`measuring ${mode} (${N} messages)...\n`);
    const t = await startTestApp({ redisUrl: mode === 'redis' ? process.env.REDIS_URL : undefined, databaseUrl: undefined, seedSampleKnowledge: false }, { chatLimits: 'defaults' });
    try {
      await t.app.get(AgentConfigService).updateGlobal({ chatLimits: { ipPerMinute: 100_000, ipPerHour: 1_000_000, socketPerMinute: 100_000 } });
      runs.push({ name: mode, figures: await measure(t) });
    } finally {
      await t.close();
    }
  }

  console.log(`\nAdded before the first token, per chat message (ms; ${N} messages, sequential, after ${WARMUP} warm-up)\n`);
  for (const { name, figures } of runs) {
    console.log(`${name.padEnd(44)} ${'p50'.padStart(8)} ${'p99'.padStart(8)}`);
    console.log(row('  rate limits (5 windows + concurrency lease)', figures.limiter));
    console.log(row('  budget check (estimate + hold, visitor tokens)', figures.budget));
    console.log(row('  added TTFT (both)', figures.both));
    console.log(row('  after the reply: settle + lease release', figures.settle));
    console.log('');
  }
  const goal = { embedded: 0.5, redis: 1 } as Record<string, number>;
  for (const { name, figures } of runs) {
    const p50 = percentile(figures.both, 50);
    console.log(`${name}: added TTFT p50 ${p50.toFixed(3)} ms (goal <= ${goal[name]} ms: ${p50 <= goal[name] ? 'met' : 'NOT met'})`);
  }
  if (runs.length === 2) {
    const ratio = percentile(runs[1].figures.both, 50) / percentile(runs[0].figures.both, 50);
    console.log(`redis / embedded, p50: ${ratio.toFixed(1)}x`);
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
