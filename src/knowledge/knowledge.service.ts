/**
 * The knowledge base's service: item writes and reads for the admin API, and the entry point of
 * retrieval for the chat pipeline. What each part does lives in a file of its own:
 *  - chunk-rows.ts: the chunk rows an item is indexed as; knowledge-attachments.ts: its attachments;
 *  - sliced-indexing.ts: large items on SQLite, indexed in slices and hidden from search meanwhile;
 *  - knowledge-retrieval.ts: search and retrieve (relevance floor, confidence, embeddings fused);
 *  - knowledge-list.ts: the admin list; source-urls.ts: imported items' URLs; knowledge-views.ts:
 *    items as the API returns them; knowledge-types.ts: the shapes.
 *
 * Every write re-chunks the item and replaces its chunks in the same transaction as the item row,
 * so the search index never holds passages of a deleted or outdated item.
 */
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy, Optional } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager, Repository } from 'typeorm';
import type { CheckedKnowledgeItem, PublicKnowledgeItem } from '../shared/contracts/knowledge';
import { KnowledgeAttachment } from './knowledge-attachment.entity';
import { KnowledgeChunk } from './knowledge-chunk.entity';
import { KnowledgeItem, KnowledgeVertical } from './knowledge-item.entity';
import { KnowledgeError } from './knowledge.errors';
import { createKnowledgeSearchIndex, KnowledgeSearchIndex, WarmReport } from './search-index';
import { dialectOf } from '../database/data-source';
import { AuditTargets, type TargetSnapshot } from '../audit/audit-targets';
import { writeTransaction } from '../database/write-queue';
import { APP_CONFIG, type AppConfig, soleServer } from '../config/app-config';
import type { SemanticSearch } from './semantic-search';
import { chunkRowsOf, insertChunkRows, type ChunkRowInput } from './chunk-rows';
import { replaceAttachments } from './knowledge-attachments';
import { listItems } from './knowledge-list';
import { KnowledgeRetrieval } from './knowledge-retrieval';
import type { KnowledgeItemPatch, KnowledgeItemView, KnowledgeListOptions, KnowledgePassage, KnowledgeSearchOptions, Retrieval, RetrieveOptions } from './knowledge-types';
import { viewOf, viewOfAttachment } from './knowledge-views';
import { SLICED_CHUNKS, SlicedIndexing } from './sliced-indexing';
import { SourceUrls } from './source-urls';

export type {
  KnowledgeAttachmentView,
  KnowledgeItemPatch,
  KnowledgeItemView,
  KnowledgeListOptions,
  KnowledgePassage,
  KnowledgeSearchOptions,
  KnowledgeSource,
  Retrieval,
  RetrieveOptions,
} from './knowledge-types';
export { rankItems } from './knowledge-list';

let lastStamp = 0;
function nextStamp(): number {
  lastStamp = Math.max(Date.now(), lastStamp + 1);
  return lastStamp;
}

@Injectable()
export class KnowledgeService implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(KnowledgeService.name);
  private readonly index: KnowledgeSearchIndex;
  private semantic?: SemanticSearch;
  /** SQLite: large items are (re)indexed in slices (sliced-indexing.ts); Postgres readers never wait on a writer. */
  private readonly sliced: boolean;
  private readonly slices: SlicedIndexing;
  private readonly urls: SourceUrls;
  private readonly finding: KnowledgeRetrieval;

  constructor(
    @Inject(DataSource) private readonly dataSource: DataSource,
    @InjectRepository(KnowledgeItem) private readonly items: Repository<KnowledgeItem>,
    @InjectRepository(KnowledgeChunk) chunks: Repository<KnowledgeChunk>,
    @InjectRepository(KnowledgeAttachment) private readonly attachments: Repository<KnowledgeAttachment>,
    // Absent when a test builds the service on its own (then, like another server, it checks the index's versions with every search).
    @Optional() @Inject(APP_CONFIG) config?: AppConfig,
    @Optional() auditTargets?: AuditTargets,
  ) {
    auditTargets?.register('knowledge', { snapshot: (id) => this.auditSnapshot(id) });
    this.index = createKnowledgeSearchIndex(dataSource);
    this.sliced = dialectOf(dataSource) === 'sqlite';
    this.slices = new SlicedIndexing({
      dataSource,
      index: this.index,
      sliced: this.sliced,
      logger: this.logger,
      transaction: (work) => this.transaction(work),
      insertChunks: (manager, rows) => this.insertChunks(manager, rows),
      written: () => this.written(),
    });
    this.urls = new SourceUrls(items);
    this.finding = new KnowledgeRetrieval({ dataSource, chunks, index: this.index, slices: this.slices, urls: this.urls, semantic: () => this.semantic });
    // Every write to the index is this service's: warm searches are answered from memory.
    if (config && soleServer(config) && this.sliced) this.index.trustOwnWrites();
  }

  /**
   * At startup, the search cache warms in the background (the server answers meanwhile), and
   * items a stopped server left half-indexed are indexed again (hidden from search until done).
   */
  async onApplicationBootstrap(): Promise<void> {
    if (this.sliced) {
      // Hidden before the server answers anything; indexed in the background.
      const unfinished = await this.slices.hideUnfinished();
      this.slices.resumeUnfinished(unfinished).catch((error: unknown) => {
        if (this.dataSource.isInitialized) this.logger.warn(`Indexing of unfinished knowledge items failed: ${String(error)}`);
      });
    }
    this.warmSearchCache().then(
      (report) => this.logger.log(`Search cache warmed: ${report.terms} terms, ${(report.bytes / 1048576).toFixed(1)} MB in ${Math.round(report.ms)} ms`),
      (error: unknown) => {
        if (this.dataSource.isInitialized) this.logger.warn(`Search cache warm-up failed: ${String(error)}`);
      },
    );
  }

  async onModuleDestroy(): Promise<void> {
    await this.index.close();
  }

  /** Embeddings (hybrid retrieval) plug in here; searches fuse their hits with BM25 while they are on. */
  attachSemanticSearch(semantic: SemanticSearch): void {
    this.semantic = semantic;
  }

  /**
   * Reads the postings searches are most likely to need into the search cache (see
   * CacheWarmer): done at startup and after writes, in the background; awaited by the benchmark.
   */
  warmSearchCache(): Promise<WarmReport> {
    return this.index.warm();
  }

  async create(input: CheckedKnowledgeItem): Promise<KnowledgeItemView> {
    if (!this.sliced) {
      const [item] = await this.createMany([input]);
      return item;
    }
    const kept = input.attachments.find((a) => a.content === undefined);
    if (kept) throw KnowledgeError.invalid('attachments', `"${kept.name}" has no content`);
    const id = randomUUID();
    return this.slices.lockedItem(id, async () => {
      const { attachments, url, ...fields } = input;
      const now = nextStamp();
      const item = this.items.create({ id, ...fields, sourceUrl: url ?? null, createdAt: now, updatedAt: now });
      const { stored, sliced } = await this.transaction(async (manager) => {
        await manager.insert(KnowledgeItem, item);
        const stored = await replaceAttachments(manager, id, attachments, now);
        return { stored, sliced: await this.reindexOrMark(manager, item, stored, 0) };
      });
      this.urls.remember(id, item.sourceUrl);
      const view = viewOf(item, stored.map((a) => viewOfAttachment(a, now)));
      if (sliced) await this.slices.indexInSlices(item, stored);
      this.written();
      return view;
    });
  }

  /**
   * Creates several items in ONE transaction (all or none). `alsoWithin` runs in that transaction
   * first, e.g. to record that a seed happened so two servers starting together cannot both seed.
   * The answer is built before the transaction commits: if it cannot be, nothing is stored.
   */
  async createMany(inputs: CheckedKnowledgeItem[], alsoWithin?: (manager: EntityManager) => Promise<void>): Promise<KnowledgeItemView[]> {
    for (const input of inputs) {
      const kept = input.attachments.find((a) => a.content === undefined);
      if (kept) throw KnowledgeError.invalid('attachments', `"${kept.name}" has no content`);
    }
    return this.write(async (manager) => {
      if (alsoWithin) await alsoWithin(manager);
      const items: KnowledgeItemView[] = [];
      const chunks: ChunkRowInput[] = [];
      for (const { attachments, url, ...fields } of inputs) {
        const now = nextStamp();
        const item = manager.create(KnowledgeItem, { id: randomUUID(), ...fields, sourceUrl: url ?? null, createdAt: now, updatedAt: now });
        await manager.insert(KnowledgeItem, item);
        const stored = await replaceAttachments(manager, item.id, attachments, now);
        chunks.push(...chunkRowsOf(item, stored));
        items.push(viewOf(item, stored.map((a) => viewOfAttachment(a, now))));
      }
      // New items have no chunks to replace: all of them in as few statements as possible.
      await this.insertChunks(manager, chunks);
      return items;
    });
  }

  /** Applies `patch` (a PUT sends every field) and re-indexes the item. */
  async update(id: string, patch: KnowledgeItemPatch): Promise<KnowledgeItemView> {
    const view = await this.updateItem(id, patch);
    this.urls.remember(id, view.url);
    return view;
  }

  private async updateItem(id: string, patch: KnowledgeItemPatch): Promise<KnowledgeItemView> {
    if (!this.sliced) return this.write((manager) => this.updateIn(manager, id, patch, false).then((r) => r.view));
    return this.slices.lockedItem(id, async () => {
      const { view, item, stored, sliced } = await this.transaction((manager) => this.updateIn(manager, id, patch, true));
      if (sliced) await this.slices.indexInSlices(item, stored);
      this.written();
      return view;
    });
  }

  /**
   * The item row and attachments of an update, and its chunks unless `mayslice` and the item is
   * large (then it is marked for indexInSlices, `sliced`).
   */
  private async updateIn(
    manager: EntityManager,
    id: string,
    patch: KnowledgeItemPatch,
    maySlice: boolean,
  ): Promise<{ view: KnowledgeItemView; item: KnowledgeItem; stored: KnowledgeAttachment[]; sliced: boolean }> {
    {
      const existing = await this.lockItem(manager, id);
      if (!existing) throw KnowledgeError.notFound(id);
      const { attachments, url, ...fields } = patch;
      Object.assign(existing, fields, { updatedAt: Math.max(nextStamp(), existing.createdAt) });
      if (url !== undefined) existing.sourceUrl = url;
      await manager.update(
        KnowledgeItem,
        { id },
        {
          title: existing.title,
          content: existing.content,
          category: existing.category,
          vertical: existing.vertical,
          tags: existing.tags,
          jurisdiction: existing.jurisdiction ?? null,
          subRegion: existing.subRegion ?? null,
          sourceUrl: existing.sourceUrl ?? null,
          updatedAt: existing.updatedAt,
        },
      );
      const stored =
        attachments === undefined
          ? await manager.find(KnowledgeAttachment, { where: { itemId: id }, order: { ord: 'ASC' } })
          : await replaceAttachments(manager, id, attachments, existing.updatedAt);
      const view = viewOf(existing, stored.map((a) => viewOfAttachment(a, existing.updatedAt)));
      if (!maySlice) {
        await this.reindex(manager, existing, stored);
        return { view, item: existing, stored, sliced: false };
      }
      const chunks = await manager.count(KnowledgeChunk, { where: { itemId: id } });
      return { view, item: existing, stored, sliced: await this.reindexOrMark(manager, existing, stored, chunks) };
    }
  }

  /** Deletes the item and all its chunks. */
  async remove(id: string): Promise<void> {
    await this.removeItem(id);
    this.urls.remember(id, null);
  }

  private async removeItem(id: string): Promise<void> {
    if (!this.sliced) {
      await this.write((manager) => this.removeIn(manager, id));
      return;
    }
    await this.slices.lockedItem(id, async () => {
      // A large item is hidden from search, its chunks deleted in slices, then the item.
      const large = await this.transaction(async (manager) => {
        if (!(await this.lockItem(manager, id))) throw KnowledgeError.notFound(id);
        if ((await manager.count(KnowledgeChunk, { where: { itemId: id } })) <= SLICED_CHUNKS) {
          await this.removeIn(manager, id);
          return false;
        }
        await this.slices.mark(manager, id);
        return true;
      });
      if (large) {
        await this.slices.deleteChunksInSlices(id);
        await this.transaction((manager) => this.removeIn(manager, id));
        await this.slices.unhide(id);
      }
      this.written();
    });
  }

  /** Deletes the item, its chunks and its attachments (in the caller's transaction). */
  private async removeIn(manager: EntityManager, id: string): Promise<void> {
    const exists = await this.lockItem(manager, id);
    if (!exists) throw KnowledgeError.notFound(id);
    await manager.delete(KnowledgeChunk, { itemId: id });
    await manager.delete(KnowledgeAttachment, { itemId: id });
    await manager.delete(KnowledgeItem, { id });
  }

  async get(id: string): Promise<KnowledgeItemView> {
    const item = await this.items.findOneBy({ id });
    if (!item) throw KnowledgeError.notFound(id);
    const attachments = await this.attachments.find({ where: { itemId: id }, order: { ord: 'ASC' } });
    return viewOf(item, attachments.map((a) => viewOfAttachment(a, item.updatedAt)));
  }

  /** What the audit log compares before and after a change: the item's fields, and its attachments by name, type and size (never their content). */
  private async auditSnapshot(id: string): Promise<TargetSnapshot | null> {
    const item = await this.items.findOneBy({ id });
    if (!item) return null;
    const attachments = await this.attachments.find({ select: ['id', 'name', 'type', 'size'], where: { itemId: id }, order: { ord: 'ASC' } });
    const { title, content, category, vertical, tags, jurisdiction, subRegion } = viewOf(item, []);
    return {
      title,
      fields: { title, content, category, vertical, tags, jurisdiction, subRegion, attachments: attachments.map((a) => ({ id: a.id, name: a.name, type: a.type, size: a.size })) },
    };
  }

  /** An item as visitors may read it (a reply's source): its text, without attachments or admin fields. */
  async getPublic(id: string): Promise<PublicKnowledgeItem> {
    const item = await this.items.findOneBy({ id });
    if (!item) throw KnowledgeError.notFound(id);
    const { title, content, vertical, jurisdiction, subRegion, url, updatedAt } = viewOf(item, []);
    return { id, title, content, vertical, jurisdiction, subRegion, url, updatedAt };
  }

  /** list() with each item's attachments (without their content, which can be megabytes). */
  async listWithAttachments(options: KnowledgeListOptions = {}): Promise<KnowledgeItemView[]> {
    const items = await this.list(options);
    if (items.length === 0) return [];
    const rows: Omit<KnowledgeAttachment, 'content'>[] = await this.attachments
      .createQueryBuilder('a')
      .select(['a.id', 'a.itemId', 'a.name', 'a.type', 'a.size', 'a.uploadedAt', 'a.ord'])
      .where('a.itemId IN (:...ids)', { ids: items.map((i) => i.id) })
      .orderBy('a.ord', 'ASC')
      .getMany();
    const byItem = new Map<string, Omit<KnowledgeAttachment, 'content'>[]>();
    for (const row of rows) {
      const list = byItem.get(row.itemId) ?? [];
      list.push(row);
      byItem.set(row.itemId, list);
    }
    return items.map((item) => viewOf(item, (byItem.get(item.id) ?? []).map((a) => viewOfAttachment(a, item.updatedAt))));
  }

  /** Number of items (all, or of one vertical). */
  async count(vertical?: string): Promise<number> {
    return this.items.countBy(vertical === undefined ? {} : { vertical: vertical as KnowledgeVertical });
  }

  /**
   * Items for the admin list: newest (last updated) first; with `search`, the items the index
   * finds ranked by relevance, followed by items that merely contain the text (knowledge-list.ts).
   */
  list(options: KnowledgeListOptions = {}): Promise<KnowledgeItem[]> {
    return listItems(this.items, (query, vertical, limit, expand) => this.finding.searchChunks(query, vertical, limit, expand), options);
  }

  /** Best-matching passages, regardless of item (raw BM25 scores). */
  search(query: string, options: KnowledgeSearchOptions = {}): Promise<KnowledgePassage[]> {
    return this.finding.search(query, options);
  }

  /** The items (and their best passages) that answer `query`; see Retrieval and RetrieveOptions.elsewhere. */
  retrieve(query: string, options: RetrieveOptions = {}): Promise<Retrieval> {
    return this.finding.retrieve(query, options);
  }

  /**
   * The item row, locked against concurrent writers until the transaction ends (Postgres), so an
   * update racing a delete can never re-insert chunks for an item that is gone. SQLite writes
   * are already serialised by the write queue.
   */
  private lockItem(manager: EntityManager, id: string): Promise<KnowledgeItem | null> {
    if (typeof id !== 'string' || id.length > 36) return Promise.resolve(null);
    if (dialectOf(this.dataSource) === 'sqlite') return manager.findOneBy(KnowledgeItem, { id });
    return manager.findOne(KnowledgeItem, { where: { id }, lock: { mode: 'pessimistic_write' } });
  }

  /** Replaces the item's chunks with a fresh chunking of its content and its text attachments. */
  private async reindex(manager: EntityManager, item: KnowledgeItem, attachments: KnowledgeAttachment[] = []): Promise<void> {
    await manager.delete(KnowledgeChunk, { itemId: item.id });
    await this.insertChunks(manager, chunkRowsOf(item, attachments));
  }

  /** Inserts chunk rows in the caller's transaction (chunk-rows.ts, insertChunkRows). */
  private insertChunks(manager: EntityManager, rows: ChunkRowInput[]): Promise<void> {
    return insertChunkRows(manager, rows);
  }

  /**
   * A new or updated item's chunks: written here when it is small (`oldChunks` chunks to replace
   * and little text), else marked for indexInSlices, old chunks hidden at once. Returns whether sliced.
   */
  private async reindexOrMark(manager: EntityManager, item: KnowledgeItem, attachments: KnowledgeAttachment[], oldChunks: number): Promise<boolean> {
    if (!this.slices.isLarge(item, attachments, oldChunks)) {
      await this.reindex(manager, item, attachments);
      return false;
    }
    await this.slices.mark(manager, item.id);
    return true;
  }

  /**
   * Runs `work` in a transaction of its own (queued behind other writes on SQLite). A write
   * empties the search cache: once it has committed, the cache warms again soon (CacheWarmer).
   */
  private async write<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    const result = await this.transaction(work);
    this.written();
    return result;
  }

  /**
   * Every knowledge write's transaction: once it has ended (committed or not), the search index
   * counts it, so that memory no longer answers searches as if nothing changed (trustOwnWrites).
   */
  private async transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    try {
      return await writeTransaction(this.dataSource, work);
    } finally {
      this.index.written();
    }
  }

  /**
   * After any knowledge write has committed (in one transaction, or the last of its slices): the
   * search cache warms again soon, and with embeddings on the new or changed chunks get vectors
   * (a job).
   */
  private written(): void {
    this.index.scheduleWarm();
    this.semantic?.requestSync();
  }
}

