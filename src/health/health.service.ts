import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AgentRegistryService } from '../agents/agent-registry.service';
import { ShutdownState } from '../common/shutdown-state';
import { dialectOf } from '../database/data-source';
import { portableSql, readQuery } from '../database/sql';
import { JOB_QUEUE, JobQueue } from '../jobs/job-queue';
import { EmbeddingsService } from '../embeddings/embeddings.service';
import type { AgentHealth, AgentsHealthResponse, HealthResponse, HealthStatus } from '../shared/contracts/http';
import type { HealthPush } from '../shared/contracts/socket';

/** An agent is unhealthy when at least this share of its recent calls failed. */
const UNHEALTHY_ERROR_RATE = 0.5;
/** "Recent" for agent health. */
const RECENT_WINDOW_MS = 15 * 60 * 1000;
/** How far back lastActive looks (keeps the query on the created_at index). */
const LAST_ACTIVE_WINDOW_MS = 30 * 24 * 3600 * 1000;
const CHECK_TIMEOUT_MS = 2000;
const VERSION = '0.1.0';
/** How long a computed health push is handed to new sockets before it is computed again. */
const HEALTH_PUSH_REUSE_MS = 2000;

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => (timer = setTimeout(() => reject(new Error('timed out')), ms))),
  ]);
}

/**
 * Health of this server (database, job queue) and of the agents, the latter from the usage
 * events every server writes: healthy unless most recent calls failed; lastActive is the last call.
 */
@Injectable()
export class HealthService {
  private lastPush: { at: number; value: Promise<HealthPush> } | undefined;
  private readonly startedAt = Date.now();

  constructor(
    private readonly dataSource: DataSource,
    @Inject(JOB_QUEUE) private readonly jobs: JobQueue,
    private readonly agents: AgentRegistryService,
    private readonly shutdown: ShutdownState,
    private readonly embeddings: EmbeddingsService,
  ) {}

  async check(): Promise<HealthResponse> {
    if (this.shutdown.draining) {
      // Shutting down: not ok, without asking the database or the queue (they may be closing).
      return {
        ok: false,
        status: 'draining',
        database: { ok: false, driver: dialectOf(this.dataSource) },
        queue: { ok: false, kind: this.jobs.kind },
        uptimeSeconds: Math.round((Date.now() - this.startedAt) / 1000),
        version: VERSION,
      };
    }
    const [database, queue] = await Promise.all([
      withTimeout(readQuery(this.dataSource, 'SELECT 1'), CHECK_TIMEOUT_MS).then(
        () => true,
        () => false,
      ),
      withTimeout(this.jobs.isHealthy(), CHECK_TIMEOUT_MS).catch(() => false),
    ]);
    const embeddings = this.embeddings.health();
    const status: HealthStatus = !database ? 'unhealthy' : queue && !embeddings.degraded ? 'healthy' : 'degraded';
    return {
      ok: database,
      status,
      database: { ok: database, driver: dialectOf(this.dataSource) },
      queue: { ok: queue, kind: this.jobs.kind },
      embeddings: { status: !embeddings.enabled ? 'off' : embeddings.degraded ? 'degraded' : 'ok' },
      uptimeSeconds: Math.round((Date.now() - this.startedAt) / 1000),
      version: VERSION,
    };
  }

  async agentsHealth(): Promise<AgentsHealthResponse> {
    const now = Date.now();
    const rows: { agent_id: string; recent: string | number; errors: string | number; last_active: string | number | null }[] =
      await this.dataSource.query(
        portableSql(
          this.dataSource,
          `SELECT agent_id,
                SUM(CASE WHEN created_at >= $1 THEN 1 ELSE 0 END) AS recent,
                SUM(CASE WHEN created_at >= $1 AND status = 'error' THEN 1 ELSE 0 END) AS errors,
                MAX(created_at) AS last_active
           FROM usage_events
          WHERE created_at >= $2
          GROUP BY agent_id`,
        ),
        [now - RECENT_WINDOW_MS, now - LAST_ACTIVE_WINDOW_MS],
      );
    const byAgent = new Map(rows.map((r) => [r.agent_id, r]));
    const agents: AgentHealth[] = (await this.agents.list()).map((agent) => {
      const row = byAgent.get(agent.agentId);
      const recentRequests = Number(row?.recent ?? 0);
      const recentErrors = Number(row?.errors ?? 0);
      const healthy = agent.enabled && !agent.unavailable && (recentRequests === 0 || recentErrors / recentRequests < UNHEALTHY_ERROR_RATE);
      return {
        id: agent.agentId,
        name: agent.agentName,
        vertical: agent.vertical,
        provider: agent.connection.provider,
        model: agent.model,
        healthy,
        lastActive: row?.last_active ? new Date(Number(row.last_active)).toISOString() : null,
        recentRequests,
        recentErrors,
      };
    });
    const healthyCount = agents.filter((a) => a.healthy).length;
    const overallHealth: HealthStatus = healthyCount === agents.length ? 'healthy' : healthyCount === 0 ? 'unhealthy' : 'degraded';
    return { agents, overallHealth };
  }

  /**
   * The `health` push for the chat page's sockets. Every new socket gets one, so a burst of
   * connections (the visitors of a server that died, reconnecting to this one) shares one
   * computation made within the last HEALTH_PUSH_REUSE_MS instead of running the database checks
   * and the per-agent usage query once per socket. `fresh` (the periodic push) always recomputes.
   */
  healthPush(options: { fresh?: boolean } = {}): Promise<HealthPush> {
    const now = Date.now();
    if (!options.fresh && this.lastPush && now - this.lastPush.at < HEALTH_PUSH_REUSE_MS) return this.lastPush.value;
    const value = this.computeHealthPush();
    const entry = { at: now, value };
    this.lastPush = entry;
    // A failed computation is not reused.
    value.catch(() => {
      if (this.lastPush === entry) this.lastPush = undefined;
    });
    return value;
  }

  private async computeHealthPush(): Promise<HealthPush> {
    const health = await this.check();
    const agents = health.ok ? await this.agentsHealth().catch(() => undefined) : undefined;
    return {
      status: health.ok ? 'healthy' : 'unhealthy',
      overallHealth: !health.ok ? 'unhealthy' : agents?.overallHealth ?? 'degraded',
      timestamp: new Date().toISOString(),
    };
  }
}
