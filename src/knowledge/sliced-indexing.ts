/**
 * Large items on SQLite, indexed in slices, and the chunks searches must not see meanwhile.
 *
 * SQLite has one writer: a 10 MB attachment (~10,000 chunks, each updating ~100 rows of the
 * search index) indexed in one transaction held it for 8-15 s, and every chat's writes waited. A
 * large item is therefore stored in a first transaction marked `index_pending`, then its old
 * chunks are deleted and its new ones inserted in slices of about SLICE_MS each (other writes take
 * their turn in the write queue between slices), then the mark is cleared. Until then no search
 * returns any of its chunks (hidden chunks: ids are added inside the transaction that writes them,
 * before it commits; they are shown again once the searches that began before the last commit
 * have ranked), so a search never sees half an item: during the indexing the item is found under
 * neither its old nor its new text. The collection statistics (N, average length, document
 * frequencies) do count the hidden chunks meanwhile. A server stopped half-way leaves the mark:
 * the next start indexes the item again (resumeUnfinished). Writes of one item wait for each
 * other (lockedItem).
 */
import type { Logger } from '@nestjs/common';
import type { DataSource, EntityManager } from 'typeorm';
import { setTimeout as sleep } from 'node:timers/promises';
import { readQuery } from '../database/sql';
import type { ChunkIdSet } from './bm25-scoring';
import { chunkRowStream, indexedChars, type ChunkRowInput } from './chunk-rows';
import { KnowledgeAttachment } from './knowledge-attachment.entity';
import { KnowledgeItem } from './knowledge-item.entity';
import type { KnowledgeSearchIndex } from './search-index';

/**
 * On SQLite, an item whose texts (content and text attachments) exceed this many characters, or
 * that has more chunks than SLICED_CHUNKS, is (re)indexed in slices: see indexInSlices.
 */
const SLICED_TEXT_CHARS = 256 * 1024;
export const SLICED_CHUNKS = 200;
/** How long one slice's transaction may hold the SQLite writer (the slice size adapts to it). */
const SLICE_MS = 50;

/** The next `size` values of an iterator (fewer at its end). */
function take<T>(values: Iterator<T>, size: number): T[] {
  const taken: T[] = [];
  while (taken.length < size) {
    const next = values.next();
    if (next.done) break;
    taken.push(next.value);
  }
  return taken;
}

/** The next slice size: scaled towards SLICE_MS from the last slice's time. */
function nextSliceSize(size: number, ms: number): number {
  return Math.max(8, Math.min(1000, Math.round((size * SLICE_MS) / Math.max(ms, 1))));
}

/** The chunks not (or no longer) excluded: `exclude` is live, so it also holds ids hidden after the search began. */
export function withoutHidden<T extends { chunkId: number }>(chunks: T[], exclude: ChunkIdSet | undefined): T[] {
  return exclude && exclude.size > 0 ? chunks.filter((chunk) => !exclude.has(chunk.chunkId)) : chunks;
}

/** What the knowledge service lends the sliced indexing. */
export interface SlicedIndexingDeps {
  dataSource: DataSource;
  index: KnowledgeSearchIndex;
  /** SQLite: large items go in slices. Postgres readers never wait on a writer: nothing is sliced or hidden. */
  sliced: boolean;
  logger: Logger;
  /** A knowledge write's transaction (the service's: the index counts it). */
  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T>;
  /** Inserts chunk rows in the caller's transaction. */
  insertChunks(manager: EntityManager, rows: ChunkRowInput[]): Promise<void>;
  /** After a write has committed (the cache warms again, embeddings catch up). */
  written(): void;
}

export class SlicedIndexing {
  /** Chunks no search may return: those of items being (re)indexed or deleted in slices, by item. */
  private readonly hiddenByItem = new Map<string, Set<number>>();
  private readonly hiddenChunks = new Set<number>();
  /** Searches under way (a hidden item is shown again only once those that began before have ranked). */
  private readonly reads = new Set<Promise<unknown>>();
  /** Per item, the end of its last write: writes of one item never interleave their slices. */
  private readonly itemWrites = new Map<string, Promise<unknown>>();

  constructor(private readonly deps: SlicedIndexingDeps) {}

  /** Whether a new or updated item (with `oldChunks` chunks to replace) is large enough to index in slices. */
  isLarge(item: KnowledgeItem, attachments: KnowledgeAttachment[], oldChunks: number): boolean {
    return indexedChars(item, attachments) > SLICED_TEXT_CHARS || oldChunks > SLICED_CHUNKS;
  }

  /** Runs `work` after the writes of item `id` queued before it. */
  lockedItem<T>(id: string, work: () => Promise<T>): Promise<T> {
    const previous = this.itemWrites.get(id) ?? Promise.resolve();
    const run = previous.then(work);
    const settled = run.catch(() => undefined);
    this.itemWrites.set(id, settled);
    void settled.then(() => {
      if (this.itemWrites.get(id) === settled) this.itemWrites.delete(id);
    });
    return run;
  }

  /** Marks the item for indexInSlices (or a sliced delete) and hides its chunks at once, in the caller's transaction. */
  async mark(manager: EntityManager, id: string): Promise<void> {
    await this.markPending(manager, id);
    await this.hideChunksOf(manager, id);
  }

  private async markPending(manager: EntityManager, id: string, pending = true): Promise<void> {
    await manager.query('UPDATE knowledge_items SET index_pending = ? WHERE id = ?', [pending ? 1 : 0, id]);
  }

  /** Hides the item's chunks from search (inside the transaction that wrote them or marks the item). */
  private async hideChunksOf(manager: EntityManager, id: string, fromOrd?: number, toOrd?: number): Promise<void> {
    const rows: { id: number | string }[] =
      fromOrd === undefined
        ? await manager.query('SELECT id FROM knowledge_chunks WHERE item_id = ?', [id])
        : await manager.query('SELECT id FROM knowledge_chunks WHERE item_id = ? AND ord BETWEEN ? AND ?', [id, fromOrd, toOrd]);
    let hidden = this.hiddenByItem.get(id);
    if (!hidden) this.hiddenByItem.set(id, (hidden = new Set()));
    for (const row of rows) {
      hidden.add(Number(row.id));
      this.hiddenChunks.add(Number(row.id));
    }
  }

  /** Shows the item's chunks again, once the searches under way have ranked. */
  async unhide(id: string): Promise<void> {
    const hidden = this.hiddenByItem.get(id);
    if (!hidden) return;
    await Promise.allSettled([...this.reads]);
    for (const chunk of hidden) this.hiddenChunks.delete(chunk);
    this.hiddenByItem.delete(id);
  }

  /** A search, counted among those under way until it settles (see unhide). */
  tracked<T>(search: Promise<T>): Promise<T> {
    this.reads.add(search);
    search.then(
      () => this.reads.delete(search),
      () => this.reads.delete(search),
    );
    return search;
  }

  /** What a search leaves out: hidden chunks (live: ids hidden after the call count too) and `also`. */
  excluded(also?: ReadonlySet<number>): ChunkIdSet | undefined {
    if (!this.deps.sliced) return also;
    const hidden = this.hiddenChunks;
    return { get size() { return hidden.size + (also?.size ?? 0); }, has: (id: number) => hidden.has(id) || (also?.has(id) ?? false) };
  }

  /** Replaces a marked item's chunks (hidden meanwhile) slice by slice, then clears the mark. */
  async indexInSlices(item: KnowledgeItem, attachments: KnowledgeAttachment[]): Promise<void> {
    const release = this.deps.index.holdWarming();
    try {
      await this.indexSlices(item, attachments);
    } finally {
      release();
    }
  }

  private async indexSlices(item: KnowledgeItem, attachments: KnowledgeAttachment[]): Promise<void> {
    await this.deleteChunksInSlices(item.id);
    const rows = chunkRowStream(item, attachments);
    let size = 32;
    for (let slice = take(rows, size); slice.length > 0; slice = take(rows, size)) {
      const batch = slice;
      const ms = await this.deps.transaction(async (manager) => {
        const started = performance.now();
        await this.deps.insertChunks(manager, batch);
        await this.hideChunksOf(manager, item.id, batch[0].ord, batch[batch.length - 1].ord);
        return performance.now() - started;
      });
      size = nextSliceSize(size, ms);
      await this.breathe(ms);
    }
    await this.deps.transaction((manager) => this.markPending(manager, item.id, false));
    await this.unhide(item.id);
  }

  /**
   * Between two slices the writer rests as long as the slice held it: SQLite's work runs on a
   * thread of its own, and on a small machine a writer kept busy without a pause took the CPU the
   * chats needed (measured on 2 busy cores: chat p99 1.2-1.5 s without rest).
   */
  private async breathe(sliceMs: number): Promise<void> {
    await sleep(Math.min(Math.max(sliceMs, 5), 4 * SLICE_MS));
  }

  /** Deletes the item's chunks (hidden before), a slice per transaction. */
  async deleteChunksInSlices(id: string): Promise<void> {
    const release = this.deps.index.holdWarming();
    try {
      await this.deleteSlices(id);
    } finally {
      release();
    }
  }

  private async deleteSlices(id: string): Promise<void> {
    let size = 32;
    for (;;) {
      const limit = size;
      const { deleted, ms } = await this.deps.transaction(async (manager) => {
        const started = performance.now();
        const result = await manager.queryRunner!.query(
          'DELETE FROM knowledge_chunks WHERE id IN (SELECT id FROM knowledge_chunks WHERE item_id = ? LIMIT ?)',
          [id, limit],
          true,
        );
        return { deleted: Number(result.affected ?? 0), ms: performance.now() - started };
      });
      if (deleted < limit) return;
      size = nextSliceSize(size, ms);
      await this.breathe(ms);
    }
  }

  /** Items a stopped server left marked (index_pending): their chunks hidden. */
  async hideUnfinished(): Promise<string[]> {
    const rows: { id: string; chunk: number | string | null }[] = await readQuery(
      this.deps.dataSource,
      'SELECT i.id, c.id AS chunk FROM knowledge_items i LEFT JOIN knowledge_chunks c ON c.item_id = i.id WHERE i.index_pending = 1',
    );
    for (const row of rows) {
      let hidden = this.hiddenByItem.get(row.id);
      if (!hidden) this.hiddenByItem.set(row.id, (hidden = new Set()));
      if (row.chunk === null) continue;
      hidden.add(Number(row.chunk));
      this.hiddenChunks.add(Number(row.chunk));
    }
    return [...this.hiddenByItem.keys()];
  }

  /** Indexes the unfinished items again from their stored texts (their chunks hidden meanwhile). */
  async resumeUnfinished(ids: string[]): Promise<void> {
    for (const id of ids) {
      await this.lockedItem(id, async () => {
        const found = await this.deps.transaction(async (manager) => {
          const item = await manager.findOneBy(KnowledgeItem, { id });
          if (!item) return undefined;
          await this.hideChunksOf(manager, id);
          return { item, attachments: await manager.find(KnowledgeAttachment, { where: { itemId: id }, order: { ord: 'ASC' } }) };
        });
        if (!found) return this.unhide(id);
        this.deps.logger.log(`Indexing "${found.item.title}" again (left unfinished by the last run)`);
        await this.indexInSlices(found.item, found.attachments);
        this.deps.written();
      });
    }
  }
}
