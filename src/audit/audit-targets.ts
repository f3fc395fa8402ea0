/**
 * The targets an audit entry can name, and how to take a snapshot of one: the hook a feature
 * service registers so the audit records what its routes changed, field by field.
 *
 *   // in the feature's service (AuditTargets is global):
 *   constructor(targets: AuditTargets) {
 *     targets.register('knowledge', {
 *       snapshot: async (id) => {
 *         const item = await this.items.findOneBy({ id });
 *         return item && { title: item.title, fields: { title: item.title, content: item.content, tags: item.tags } };
 *       },
 *     });
 *   }
 *   // on the route:
 *   @Put(':id') @Audit('knowledge.update', { target: 'knowledge' })
 *
 * The audit interceptor snapshots the target before the handler runs and again after it answered,
 * and records the difference. Secrets go into `fields` only as `auditSecret(value)` (a fingerprint,
 * compared and never stored). Never put a token, password or key in `title`.
 */
import { Injectable, Logger } from '@nestjs/common';
import type { Snapshot } from './audit-diff';

export interface TargetSnapshot {
  /** What the Audit tab shows for the target (an item's title, an agent's name, a member's email). */
  title: string;
  fields: Snapshot;
}

export interface AuditTarget {
  /** The target as it is now, or null when there is none with this id. */
  snapshot(id: string): Promise<TargetSnapshot | null>;
}

@Injectable()
export class AuditTargets {
  private readonly logger = new Logger('AuditTargets');
  private readonly targets = new Map<string, AuditTarget>();

  register(kind: string, target: AuditTarget): void {
    if (this.targets.has(kind)) throw new Error(`The audit target "${kind}" is registered twice`);
    this.targets.set(kind, target);
  }

  /** A snapshot, or null when the kind has no snapshot hook, the target is gone, or reading it failed (the change is still recorded). */
  async snapshot(kind: string, id: string): Promise<TargetSnapshot | null> {
    const target = this.targets.get(kind);
    if (!target) return null;
    try {
      return await target.snapshot(id);
    } catch (error) {
      this.logger.warn(`Could not snapshot ${kind} ${id} for the audit: ${(error as Error).message}`);
      return null;
    }
  }
}
