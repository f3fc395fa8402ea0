import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { queuedWrite } from '../database/write-queue';
import { A2aTask } from './a2a-task.entity';

export const LIST_PAGE_DEFAULT = 50;
export const LIST_PAGE_MAX = 100;

/** A page of a key's tasks, newest first. */
export interface TaskPage {
  rows: A2aTask[];
  total: number;
  /** The cursor of the next page ('' when this is the last). */
  next: string;
}

/** The cursor of the page after `row`: its time and id, so a page never skips or repeats a task. */
export function cursorOf(row: A2aTask): string {
  return Buffer.from(`${row.createdAt}:${row.id}`).toString('base64url');
}

function parseCursor(token: string): { createdAt: number; id: string } | undefined {
  const match = /^(\d{1,16}):([A-Za-z0-9_-]{1,36})$/.exec(Buffer.from(token, 'base64url').toString());
  return match ? { createdAt: Number(match[1]), id: match[2] } : undefined;
}

/** The A2A tasks of each API key (a2a_tasks): which context each belongs to, and its question. */
@Injectable()
export class A2aTasksService {
  constructor(@InjectRepository(A2aTask) private readonly tasks: Repository<A2aTask>) {}

  async record(task: A2aTask): Promise<void> {
    await queuedWrite(this.tasks.manager.connection, () => this.tasks.insert(task));
  }

  /** The key's task (another key's does not exist for it). */
  find(id: string, apiKeyId: string): Promise<A2aTask | null> {
    if (id.length === 0 || id.length > 36) return Promise.resolve(null);
    return this.tasks.findOneBy({ id, apiKeyId });
  }

  /** A page of the key's tasks, optionally of one context; undefined for a cursor this server never gave. */
  async list(apiKeyId: string, options: { contextId?: string; pageSize: number; pageToken?: string }): Promise<TaskPage | undefined> {
    const after = options.pageToken ? parseCursor(options.pageToken) : undefined;
    if (options.pageToken && !after) return undefined;
    const base = () => {
      const query = this.tasks.createQueryBuilder('t').where('t.api_key_id = :apiKeyId', { apiKeyId });
      if (options.contextId) query.andWhere('t.context_id = :contextId', { contextId: options.contextId });
      return query;
    };
    const page = base();
    if (after) page.andWhere('(t.created_at < :at OR (t.created_at = :at AND t.id < :id))', { at: after.createdAt, id: after.id });
    const [rows, total] = await Promise.all([
      page.orderBy('t.created_at', 'DESC').addOrderBy('t.id', 'DESC').take(options.pageSize + 1).getMany(),
      base().getCount(),
    ]);
    const more = rows.length > options.pageSize;
    const shown = rows.slice(0, options.pageSize);
    return { rows: shown, total, next: more ? cursorOf(shown[shown.length - 1]) : '' };
  }
}
