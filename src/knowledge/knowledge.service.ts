/**
 * The knowledge base: item CRUD for the admin API, and retrieval for the chat pipeline.
 *
 * Every write re-chunks the item and replaces its chunks in the same transaction as the item row,
 * so the search index never holds passages of a deleted or outdated item. Retrieval searches
 * chunks (BM25, see search-index.ts) but answers per ITEM, with a relevance floor and a calibrated
 * confidence: see src/retrieval/relevance.ts.
 */
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy, Optional } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager, FindOptionsWhere, In, IsNull, Not, Repository } from 'typeorm';
import type { CheckedAttachment, CheckedKnowledgeItem, KnowledgeAttachment as KnowledgeAttachmentView, KnowledgeItem as KnowledgeItemView, PublicKnowledgeItem } from '../shared/contracts/knowledge';
import { EARLIEST_DATE_MS, LATEST_DATE_MS } from '../shared/contracts/rules';
import { chunkContent, chunkStream } from './chunker';
import { KnowledgeAttachment } from './knowledge-attachment.entity';
import { KnowledgeChunk } from './knowledge-chunk.entity';
import { KnowledgeItem, KnowledgeVertical } from './knowledge-item.entity';
import { KnowledgeError } from './knowledge.errors';
import { analyseQuery, termWeight } from '../retrieval/query-terms';
import {
  citable,
  DEFAULT_RELEVANCE,
  ELSEWHERE_MARGIN,
  EXPANSION_WEIGHT,
  rankItems as rankAnswers,
  RankedItem as RankedAnswer,
  RelevanceParams,
  relevanceFor,
  replyConfidence,
  SUGGEST_CONFIDENCE,
  WEAK_MATCH,
} from '../retrieval/relevance';
import { allowedKeys, isAllowed, jurisdictionKey, VisitorJurisdiction } from '../retrieval/jurisdiction';
import { portableSql, readQuery } from '../database/sql';
import { createKnowledgeSearchIndex, KnowledgeSearchIndex, ScoredChunk, WarmReport } from './search-index';
import type { ChunkIdSet } from './bm25-scoring';
import { dialectOf } from '../database/data-source';
import { AuditTargets, type TargetSnapshot } from '../audit/audit-targets';
import { writeTransaction } from '../database/write-queue';
import { APP_CONFIG, type AppConfig, soleServer } from '../config/app-config';
import { fuseRankings, SemanticSearch, SemanticSearchResult } from './semantic-search';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * A checked item (KnowledgeItemInputSchema's output: the API parses every body with it before it
 * gets here; other callers parse with it too). A patch changes some fields of a stored item.
 */
export type KnowledgeItemPatch = Partial<CheckedKnowledgeItem>;

export type { KnowledgeAttachmentView, KnowledgeItemView };

export interface KnowledgeListOptions {
  vertical?: string;
  /** Items of this jurisdiction (a code), or 'none' for items without one. */
  jurisdiction?: string;
  /** With `jurisdiction`: its items of this sub-region. */
  subRegion?: string;
  /** Free text: items ranked by relevance, then items merely containing the text. */
  search?: string;
}

export interface KnowledgeSearchOptions {
  vertical?: string;
  /** Most passages to return; default 10, at most 100. */
  limit?: number;
}

/** A passage of a knowledge item (shape compatible with the LLM port's LlmPassage). */
export interface KnowledgePassage {
  itemId: string;
  chunkId: number;
  title: string;
  text: string;
  /** search(): raw BM25 (higher is better). retrieve(): relative to the best passage, 0..1. */
  score: number;
}

/** A knowledge item an answer can cite (the chat reply's `sources`). */
export interface KnowledgeSource {
  id: string;
  title: string;
  /** Relative to the best item of the same retrieval: 1 for the best, down to 0. */
  score: number;
  /**
   * The item's best-matching passage (its chunk's text: the item's words with the white space
   * normalised, see chunker.ts), what a source chip opens to. Absent when the chunk went meanwhile.
   */
  passage?: string;
  /** The web page the item was imported from (replies link it). */
  url?: string;
}

export interface RetrieveOptions {
  vertical?: string;
  /** Most items; default 4, at most 20. */
  limit?: number;
  /** Most passages per item; default 2, at most 10. */
  passagesPerItem?: number;
  /** Also search related words from the support thesaurus (default true). */
  expand?: boolean;
  /** Ranking parameters other than the defaults (the evaluation tries them; see relevance.ts). */
  relevance?: Partial<RelevanceParams>;
  /** Also return the ranked candidates, floor or not (Retrieval.candidates; for the evaluation). */
  explain?: boolean;
  /**
   * Other verticals the visitor could ask in. When nothing clears the floor here, or the match
   * here is weak and one of them matches clearly better, the reply is "not found" here and that
   * vertical is suggested (Retrieval.suggestedVertical; see WEAK_MATCH in relevance.ts).
   */
  elsewhere?: readonly string[];
  /**
   * A legal question's scope: the visitor's jurisdiction (and sub-region), or null for none. Set,
   * only items of that jurisdiction and sub-region and items without a jurisdiction are ranked;
   * another jurisdiction's are left out by the search itself. Unset: no jurisdiction filter.
   */
  jurisdiction?: VisitorJurisdiction | null;
  /** false: BM25 alone even when embeddings are on (the other verticals' probes; the evaluation's lexical mode). */
  semantic?: boolean;
}

export interface Retrieval {
  /** Items that clear the relevance floor, best first (none: "not found"). */
  sources: KnowledgeSource[];
  /** The chosen passages, grouped by item in `sources` order, each item's in document order. */
  passages: KnowledgePassage[];
  /**
   * 0..1: the estimated probability that the first source answers the question (relevance.ts,
   * replyConfidence: its match, lowered when another item comes close); 0 for a "not found",
   * which cites nothing. The chat pipeline reports it as the reply's `confidence`.
   */
  confidence: number;
  /**
   * 0..1: how well the first source covers the question (relevance.ts, matchOf), or for a "not
   * found" the best item below the floor (0 when nothing matched at all). What decides whether
   * another vertical's knowledge matches better (RetrieveOptions.elsewhere).
   */
  match: number;
  /** Whether anything cleared the relevance floor (sources is not empty). */
  answered: boolean;
  /**
   * 0..1: the IDF-weighted share of the question's content terms that the first source (or, when
   * nothing cleared the floor, the best item) covers, related words counting half.
   */
  coverage: number;
  /** The content terms the question was reduced to. */
  terms: string[];
  /** With `explain`: the best ranked items (at most 30), whether they cleared the floor or not. */
  candidates?: RankedAnswer[];
  /** With `elsewhere`, when not answered: the vertical whose knowledge matches the question. */
  suggestedVertical?: string;
  /**
   * With `jurisdiction`, when answered: true when every cited item is general information (none
   * is specific to the visitor's jurisdiction or sub-region), so the reply can say so.
   */
  generalOnly?: boolean;
  /** How it was searched, when embeddings are configured: fused with them, or BM25 alone because the embedding call failed or was late. */
  mode?: 'hybrid' | 'lexical-fallback';
}

/** Weight of an item's 2nd, 3rd, ... best chunk relative to the one before it (admin list). */
const NEXT_CHUNK_DAMPING = DEFAULT_RELEVANCE.nextChunkDamping;
/** Chunks beyond this many per item add nothing to its score (admin list). */
const CHUNKS_PER_ITEM_SCORED = DEFAULT_RELEVANCE.chunksPerItem;
/** Chunks fetched from the index before grouping by item. */
const RETRIEVAL_CANDIDATES = 200;
/** Chunks fetched when the admin list is searched (ranking every matching item). */
const LIST_CANDIDATES = 2000;
/** Rows per multi-row INSERT of chunks (6 parameters each: well under SQLite's limit of 32,766). */
const CHUNK_INSERT_BATCH = 1000;

/**
 * On SQLite, an item whose texts (content and text attachments) exceed this many characters, or
 * that has more chunks than SLICED_CHUNKS, is (re)indexed in slices: see indexInSlices.
 */
const SLICED_TEXT_CHARS = 256 * 1024;
const SLICED_CHUNKS = 200;
/** How long one slice's transaction may hold the SQLite writer (the slice size adapts to it). */
const SLICE_MS = 50;

/** A knowledge_chunks row to insert. */
type ChunkRowInput = Pick<KnowledgeChunk, 'itemId' | 'ord' | 'vertical' | 'jurisdiction' | 'title' | 'text' | 'tokenCount'>;

/**
 * The texts an item is chunked from: its content, then each text attachment's, each chunked on its
 * own (an attachment's passages never join the item's) and named by the attachment's file name
 * (their heading path starts with it).
 */
function textsOf(item: KnowledgeItem, attachments: KnowledgeAttachment[]): { text: string; headingPath: string[] }[] {
  return [{ text: item.content, headingPath: [] }, ...attachments.filter((a) => !a.type.startsWith('image/')).map((a) => ({ text: a.content, headingPath: [a.name] }))];
}

/** The chunks of an item: its content's, then each text attachment's, numbered in that order. */
function chunkRowsOf(item: KnowledgeItem, attachments: KnowledgeAttachment[]): ChunkRowInput[] {
  const pieces = textsOf(item, attachments).flatMap(({ text, headingPath }, i) => (i > 0 && text.trim() === '' ? [] : chunkContent(text, { headingPath })));
  return pieces.map((chunk, ord) => ({
    itemId: item.id,
    ord,
    vertical: item.vertical,
    jurisdiction: jurisdictionKey(item.jurisdiction, item.subRegion),
    title: item.title,
    text: chunk.text,
    tokenCount: chunk.tokenCount,
  }));
}

/** chunkRowsOf, one row at a time (chunkStream): for indexing a large item in slices. */
function* chunkRowStream(item: KnowledgeItem, attachments: KnowledgeAttachment[]): Generator<ChunkRowInput> {
  let ord = 0;
  const jurisdiction = jurisdictionKey(item.jurisdiction, item.subRegion);
  for (const [i, { text, headingPath }] of textsOf(item, attachments).entries()) {
    if (i > 0 && text.trim() === '') continue;
    for (const chunk of chunkStream(text, { headingPath })) {
      yield { itemId: item.id, ord: ord++, vertical: item.vertical, jurisdiction, title: item.title, text: chunk.text, tokenCount: chunk.tokenCount };
    }
  }
}

/** Characters of the texts an item is chunked from. */
function indexedChars(item: KnowledgeItem, attachments: KnowledgeAttachment[]): number {
  return attachments.reduce((n, a) => n + (a.type.startsWith('image/') ? 0 : a.content.length), item.content.length);
}

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

/** An item's aggregated relevance. */
interface RankedItem {
  itemId: string;
  title: string;
  score: number;
  /** Its matching chunks, best first. */
  chunks: ScoredChunk[];
}

/** Epoch ms that never repeats or goes backwards within this process, so "newest first" is total. */
let lastStamp = 0;
function nextStamp(): number {
  lastStamp = Math.max(Date.now(), lastStamp + 1);
  return lastStamp;
}

function clampInt(value: number | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined || !Number.isFinite(value)) return fallback;
  return Math.min(max, Math.max(min, Math.floor(value)));
}

/** Groups chunks by item and scores each item: best chunk + damped share of its next best (the admin list's order). */
export function rankItems(chunks: ScoredChunk[]): RankedItem[] {
  const byItem = new Map<string, RankedItem>();
  for (const chunk of chunks) {
    let item = byItem.get(chunk.itemId);
    if (!item) {
      item = { itemId: chunk.itemId, title: chunk.title, score: 0, chunks: [] };
      byItem.set(chunk.itemId, item);
    }
    item.chunks.push(chunk);
  }
  for (const item of byItem.values()) {
    item.chunks.sort((a, b) => b.score - a.score || a.ord - b.ord);
    item.score = item.chunks
      .slice(0, CHUNKS_PER_ITEM_SCORED)
      .reduce((sum, chunk, i) => sum + chunk.score * NEXT_CHUNK_DAMPING ** i, 0);
  }
  return [...byItem.values()].sort((a, b) => b.score - a.score || a.itemId.localeCompare(b.itemId));
}

/**
 * An epoch-ms column as ISO text. Rows stored before dates were bounded (an attachment's
 * uploadedAt could be 8.64e15 + 1, which no Date can print) fall back to `fallback`, so one bad
 * row cannot make every list fail.
 */
function isoOf(ms: number, fallback: number): string {
  return new Date(ms >= EARLIEST_DATE_MS && ms <= LATEST_DATE_MS ? ms : fallback).toISOString();
}

function viewOfAttachment(a: Pick<KnowledgeAttachment, 'id' | 'name' | 'type' | 'size' | 'uploadedAt'> & { content?: string }, fallback: number): KnowledgeAttachmentView {
  return { id: a.id, name: a.name, type: a.type, size: a.size, ...(a.content !== undefined ? { content: a.content } : {}), uploadedAt: isoOf(a.uploadedAt, fallback) };
}

/** The item as the API returns it (times as ISO text). */
function viewOf(item: KnowledgeItem, attachments: KnowledgeAttachmentView[]): KnowledgeItemView {
  return {
    id: item.id,
    title: item.title,
    content: item.content,
    category: item.category,
    vertical: item.vertical,
    tags: item.tags,
    attachments,
    jurisdiction: item.jurisdiction ?? null,
    subRegion: item.subRegion ?? null,
    url: item.sourceUrl ?? null,
    createdAt: new Date(item.createdAt).toISOString(),
    updatedAt: new Date(item.updatedAt).toISOString(),
  };
}

/** The item ranked most relevant after `first` (with embeddings, the fused order may put a less relevant one second). */
function runnerUpOf(ranked: readonly RankedAnswer[], first: RankedAnswer): RankedAnswer | undefined {
  let best: RankedAnswer | undefined;
  for (const item of ranked) if (item !== first && (!best || item.relevance > best.relevance)) best = item;
  return best;
}

function round(value: number): number {
  return Math.round(value * 10_000) / 10_000;
}

/** How old the map of source URLs may get before it is read again (off the request path). */
const URL_CACHE_MS = 60_000;

@Injectable()
export class KnowledgeService implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(KnowledgeService.name);
  private readonly index: KnowledgeSearchIndex;
  private semantic?: SemanticSearch;
  /** SQLite: large items are (re)indexed in slices (indexInSlices); Postgres readers never wait on a writer. */
  private readonly sliced: boolean;
  /** Chunks no search may return: those of items being (re)indexed or deleted in slices, by item. */
  private readonly hiddenByItem = new Map<string, Set<number>>();
  private readonly hiddenChunks = new Set<number>();
  /** The source URL of every item that has one (imported web pages), by item id; see sourceUrls. */
  private urls: { byItem: Map<string, string>; at: number } | undefined;
  private urlsLoading: Promise<void> | undefined;
  /** Searches under way (a hidden item is shown again only once those that began before have ranked). */
  private readonly reads = new Set<Promise<unknown>>();
  /** Per item, the end of its last write: writes of one item never interleave their slices. */
  private readonly itemWrites = new Map<string, Promise<unknown>>();

  constructor(
    @Inject(DataSource) private readonly dataSource: DataSource,
    @InjectRepository(KnowledgeItem) private readonly items: Repository<KnowledgeItem>,
    @InjectRepository(KnowledgeChunk) private readonly chunks: Repository<KnowledgeChunk>,
    @InjectRepository(KnowledgeAttachment) private readonly attachments: Repository<KnowledgeAttachment>,
    // Absent when a test builds the service on its own (then, like another server, it checks the index's versions with every search).
    @Optional() @Inject(APP_CONFIG) config?: AppConfig,
    @Optional() auditTargets?: AuditTargets,
  ) {
    auditTargets?.register('knowledge', { snapshot: (id) => this.auditSnapshot(id) });
    this.index = createKnowledgeSearchIndex(dataSource);
    this.sliced = dialectOf(dataSource) === 'sqlite';
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
      const unfinished = await this.hideUnfinished();
      this.resumeUnfinished(unfinished).catch((error: unknown) => {
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
    return this.lockedItem(id, async () => {
      const { attachments, url, ...fields } = input;
      const now = nextStamp();
      const item = this.items.create({ id, ...fields, sourceUrl: url ?? null, createdAt: now, updatedAt: now });
      const { stored, sliced } = await this.transaction(async (manager) => {
        await manager.insert(KnowledgeItem, item);
        const stored = await this.replaceAttachments(manager, id, attachments, now);
        return { stored, sliced: await this.reindexOrMark(manager, item, stored, 0) };
      });
      this.rememberUrl(id, item.sourceUrl);
      const view = viewOf(item, stored.map((a) => viewOfAttachment(a, now)));
      if (sliced) await this.indexInSlices(item, stored);
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
        const stored = await this.replaceAttachments(manager, item.id, attachments, now);
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
    this.rememberUrl(id, view.url);
    return view;
  }

  private async updateItem(id: string, patch: KnowledgeItemPatch): Promise<KnowledgeItemView> {
    if (!this.sliced) return this.write((manager) => this.updateIn(manager, id, patch, false).then((r) => r.view));
    return this.lockedItem(id, async () => {
      const { view, item, stored, sliced } = await this.transaction((manager) => this.updateIn(manager, id, patch, true));
      if (sliced) await this.indexInSlices(item, stored);
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
          : await this.replaceAttachments(manager, id, attachments, existing.updatedAt);
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
    this.rememberUrl(id, null);
  }

  private async removeItem(id: string): Promise<void> {
    if (!this.sliced) {
      await this.write((manager) => this.removeIn(manager, id));
      return;
    }
    await this.lockedItem(id, async () => {
      // A large item is hidden from search, its chunks deleted in slices, then the item.
      const large = await this.transaction(async (manager) => {
        if (!(await this.lockItem(manager, id))) throw KnowledgeError.notFound(id);
        if ((await manager.count(KnowledgeChunk, { where: { itemId: id } })) <= SLICED_CHUNKS) {
          await this.removeIn(manager, id);
          return false;
        }
        await this.markPending(manager, id);
        await this.hideChunksOf(manager, id);
        return true;
      });
      if (large) {
        await this.deleteChunksInSlices(id);
        await this.transaction((manager) => this.removeIn(manager, id));
        await this.unhide(id);
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
   * finds ranked by relevance, followed by items that merely contain the text (so typing part of
   * a word still finds something), newest first.
   */
  async list(options: KnowledgeListOptions = {}): Promise<KnowledgeItem[]> {
    const repo = this.items;
    // Control characters are never in what admins search for (and a NUL would cut SQLite's LIKE
    // pattern short, to '%', which matches everything).
    // eslint-disable-next-line no-control-regex
    const search = (options.search ?? '').replace(/[\u0000-\u001f\u007f]+/g, ' ').trim().slice(0, 500);
    const newestFirst = { updatedAt: 'DESC', createdAt: 'DESC', id: 'ASC' } as const;
    const where: FindOptionsWhere<KnowledgeItem> = {};
    if (options.vertical !== undefined) where.vertical = options.vertical as KnowledgeVertical;
    if (options.jurisdiction !== undefined) {
      where.jurisdiction = options.jurisdiction === 'none' ? IsNull() : options.jurisdiction;
      if (options.subRegion !== undefined && options.jurisdiction !== 'none') where.subRegion = options.subRegion;
    }
    if (search === '') return repo.find({ where, order: newestFirst });

    // The items with the admin's own words, by BM25; then those found only through related words
    // of the support thesaurus (a rare synonym would otherwise outrank the word itself: "refund"
    // put "Expenses and reimbursement" above "Returns and refunds"); then plain substring matches.
    const literal = rankItems(await this.searchChunks(search, options.vertical, LIST_CANDIDATES, false)).map((r) => r.itemId);
    const seen = new Set(literal);
    const related = rankItems(await this.searchChunks(search, options.vertical, LIST_CANDIDATES, true))
      .map((r) => r.itemId)
      .filter((id) => !seen.has(id));
    const rankedIds = [...literal, ...related];
    const found = rankedIds.length > 0 ? await repo.findBy({ ...where, id: In(rankedIds) }) : [];
    const byId = new Map(found.map((item) => [item.id, item]));

    const pattern = `%${search.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const qb = repo
      .createQueryBuilder('item')
      .where(
        `(LOWER(item.title) LIKE :pattern ESCAPE '\\' OR LOWER(item.category) LIKE :pattern ESCAPE '\\'
          OR LOWER(item.tags) LIKE :pattern ESCAPE '\\' OR LOWER(item.content) LIKE :pattern ESCAPE '\\')`,
        { pattern },
      )
      .orderBy('item.updatedAt', 'DESC')
      .addOrderBy('item.createdAt', 'DESC')
      .addOrderBy('item.id', 'ASC');
    if (options.vertical !== undefined) qb.andWhere('item.vertical = :vertical', { vertical: options.vertical });
    if (where.jurisdiction !== undefined) {
      if (options.jurisdiction === 'none') qb.andWhere('item.jurisdiction IS NULL');
      else qb.andWhere('item.jurisdiction = :jurisdiction', { jurisdiction: options.jurisdiction });
      if (where.subRegion !== undefined) qb.andWhere('item.subRegion = :subRegion', { subRegion: options.subRegion });
    }
    const containing = await qb.getMany();

    const result = rankedIds.map((id) => byId.get(id)).filter((item): item is KnowledgeItem => item !== undefined);
    const listed = new Set(result.map((item) => item.id));
    for (const item of containing) if (!listed.has(item.id)) result.push(item);
    return result;
  }

  /** Best-matching passages, regardless of item (raw BM25 scores). */
  async search(query: string, options: KnowledgeSearchOptions = {}): Promise<KnowledgePassage[]> {
    const limit = clampInt(options.limit, 10, 1, 100);
    // The first search also reads the source URLs that retrievals cite (see sourceUrls).
    if (!this.urls) await this.loadUrls();
    const chunks = await this.searchChunks(query, options.vertical, limit, true);
    return chunks.map((c) => ({ itemId: c.itemId, chunkId: c.chunkId, title: c.title, text: c.text, score: c.score }));
  }

  /** The items (and their best passages) that answer `query`; see Retrieval and RetrieveOptions.elsewhere. */
  async retrieve(query: string, options: RetrieveOptions = {}): Promise<Retrieval> {
    const here = await this.retrieveIn(query, options);
    const others = (options.elsewhere ?? []).filter((v) => v !== options.vertical);
    if (others.length === 0 || (here.answered && here.match >= WEAK_MATCH)) return here;
    let best: { vertical: string; match: number } | undefined;
    for (const vertical of others) {
      const there = await this.retrieveIn(query, { vertical, limit: 1, passagesPerItem: 1, relevance: options.relevance, semantic: false });
      if (there.answered && there.match >= SUGGEST_CONFIDENCE && there.match > (best?.match ?? 0)) best = { vertical, match: there.match };
    }
    if (!best) return here;
    if (!here.answered) return { ...here, suggestedVertical: best.vertical };
    if (best.match - here.match < ELSEWHERE_MARGIN) return here;
    // The question belongs to the other vertical: nothing here is cited (and nothing is claimed).
    return { ...here, sources: [], passages: [], answered: false, confidence: 0, suggestedVertical: best.vertical };
  }

  /** retrieve() within options.vertical only. */
  private retrieveIn(query: string, options: RetrieveOptions): Promise<Retrieval> {
    return this.tracked(this.retrieveInUntracked(query, options));
  }

  private async retrieveInUntracked(query: string, options: RetrieveOptions): Promise<Retrieval> {
    const { terms, expansions: related, weights: analysedWeights, topic } = analyseQuery(query, options.vertical);
    const empty: Retrieval = { sources: [], passages: [], confidence: 0, match: 0, answered: false, coverage: 0, terms };
    // Nothing but numbers and generic words ("thanks 9"): no passage can be said to answer it.
    if (terms.length === 0 || !topic) return empty;
    const limit = clampInt(options.limit, 4, 1, 20);
    const perItem = clampInt(options.passagesPerItem, 2, 1, 10);
    const params = relevanceFor(options.vertical, options.relevance);

    // The candidates without their text: only the passages chosen below need it.
    const expansions = options.expand === false ? [] : related;
    const weights = analysedWeights ?? terms.map((t) => termWeight(t, options.vertical));
    // A legal question: other jurisdictions' chunks are left out while ranking (so they cannot
    // crowd the visitor's out of the candidates), and checked again on the candidates found (a
    // chunk written between the two reads).
    const allowed = options.jurisdiction === undefined ? undefined : allowedKeys(options.jurisdiction);
    const outside = allowed ? this.chunksOutside(allowed, options.vertical) : Promise.resolve(undefined);
    // Embeddings on: the question's vector is asked for while BM25 runs (it falls back to BM25
    // alone when the call fails or is late: mode 'lexical-fallback'). Chunks of items being
    // (re)indexed in slices are left out of both.
    const semantic = options.semantic !== false && this.semantic?.active() ? this.semantic : undefined;
    const near: Promise<SemanticSearchResult> | undefined = semantic && outside.then((excluded) => semantic.search(query, options.vertical, this.excluded(excluded)));
    near?.catch(() => undefined);
    const exclude = this.excluded(await outside);
    const found = await this.index.searchScored(
      [...terms.map((text, i) => ({ text, weight: weights[i] })), ...expansions.map((e) => ({ text: e.term, weight: e.weight ?? EXPANSION_WEIGHT }))],
      { vertical: options.vertical, limit: RETRIEVAL_CANDIDATES, text: false, exclude },
    );
    let chunks = withoutHidden(found.chunks, exclude);
    const vectors = near && (await near.catch((): SemanticSearchResult => ({ mode: 'lexical-fallback', hits: [] })));
    const tag = (r: Retrieval): Retrieval => (vectors ? { ...r, mode: vectors.mode } : r);
    if (vectors && vectors.hits.length > 0) {
      // The nearest chunks BM25 did not find join the candidates (matching no word of the question).
      const have = new Set(chunks.map((c) => c.chunkId));
      const added = vectors.hits.filter((h) => !have.has(h.chunkId)).map((h) => ({ chunkId: h.chunkId, itemId: h.itemId, ord: h.ord, title: h.title, text: '', score: 0, matchedTerms: [] }));
      chunks = [...chunks, ...added];
    }
    let keys: Map<number, string | null> | undefined;
    if (allowed) {
      keys = await this.chunkJurisdictions(chunks.map((c) => c.chunkId));
      chunks = chunks.filter((c) => keys!.has(c.chunkId) && isAllowed(keys!.get(c.chunkId)!, allowed));
    }
    let ranked = rankAnswers(chunks, { terms, weights, expansions, idf: found.wordIdf }, params);
    if (vectors && vectors.hits.length > 0) {
      // Hybrid: items ordered by reciprocal rank fusion of the BM25 ranking and the vector ranking
      // (an item's best chunk). Confidence and the relevance floor stay those of the words.
      const byId = new Map(ranked.map((item) => [item.itemId, item]));
      const nearestItems = [...new Set(vectors.hits.map((h) => h.itemId))].filter((id) => byId.has(id));
      const fused = fuseRankings(ranked.map((item) => item.itemId), nearestItems).map((id) => byId.get(id)!);
      // Items that clear the relevance floor stay ahead of those that do not: fusion reorders the
      // answerable ones, it never puts an uncitable item first and so turns a found answer into
      // "not found" (measured with plain RRF on the eval's mock vectors: not found rose, R@1 fell).
      ranked = [...fused.filter((item) => item.match >= params.floor), ...fused.filter((item) => item.match < params.floor)];
    }
    const candidates = options.explain ? { candidates: ranked.slice(0, 30) } : {};
    if (ranked.length === 0) return tag({ ...empty, ...candidates });
    const top = citable(ranked, limit, params);
    if (top.length === 0) return tag({ ...empty, match: round(ranked[0].match), coverage: round(ranked[0].coverage), ...candidates });

    const bestChunk = Math.max(...top.map((item) => item.chunks[0].score));
    const passages: KnowledgePassage[] = [];
    for (const item of top) {
      const chosen = item.chunks.slice(0, perItem).sort((a, b) => a.ord - b.ord);
      for (const chunk of chosen) {
        passages.push({
          itemId: chunk.itemId,
          chunkId: chunk.chunkId,
          title: chunk.title,
          text: chunk.text,
          score: round(bestChunk > 0 ? chunk.score / bestChunk : 0),
        });
      }
    }
    const texts = await this.chunkTexts(passages.map((p) => p.chunkId));
    const urls = await this.sourceUrls(top.map((item) => item.itemId));
    const best = top[0].relevance;
    return tag({
      sources: top.map((item) => {
        const passage = texts.get(item.chunks[0].chunkId);
        const url = urls.get(item.itemId);
        return { id: item.itemId, title: item.title, score: round(best > 0 ? Math.min(1, item.relevance / best) : 0), ...(passage ? { passage } : {}), ...(url ? { url } : {}) };
      }),
      // A chunk deleted since it was ranked has no text to quote.
      passages: passages.filter((p) => texts.has(p.chunkId)).map((p) => ({ ...p, text: texts.get(p.chunkId) as string })),
      confidence: round(replyConfidence(top[0], runnerUpOf(ranked, top[0]))),
      match: round(top[0].match),
      answered: true,
      coverage: round(top[0].coverage),
      terms,
      ...candidates,
      ...(keys && options.jurisdiction ? { generalOnly: top.every((item) => keys!.get(item.chunks[0].chunkId) === null) } : {}),
    });
  }

  /**
   * The source URLs of the items that have one (imported web pages), by item id. All of them are
   * kept in memory (only imported pages have one), read with the first search and again, off the
   * request path, once the map is older than URL_CACHE_MS: a warm retrieval reads nothing. This
   * server's own writes change the map at once; another server's within that time.
   */
  private async sourceUrls(ids: string[]): Promise<Map<string, string>> {
    if (!this.urls) await this.loadUrls();
    else if (Date.now() - this.urls.at > URL_CACHE_MS) void this.loadUrls().catch(() => undefined);
    const found = new Map<string, string>();
    for (const id of ids) {
      const url = this.urls?.byItem.get(id);
      if (url) found.set(id, url);
    }
    return found;
  }

  private loadUrls(): Promise<void> {
    this.urlsLoading ??= (async () => {
      const rows = await this.items.find({ select: { id: true, sourceUrl: true }, where: { sourceUrl: Not(IsNull()) } });
      this.urls = { byItem: new Map(rows.map((row) => [row.id, row.sourceUrl!])), at: Date.now() };
    })().finally(() => {
      this.urlsLoading = undefined;
    });
    return this.urlsLoading;
  }

  /** This server's write of an item: its URL (or none) is known at once. */
  private rememberUrl(id: string, url: string | null | undefined): void {
    if (!this.urls) return;
    if (url) this.urls.byItem.set(id, url);
    else this.urls.byItem.delete(id);
  }

  /** Chunks with a jurisdiction outside `allowed` (of one vertical, or of all). */
  private async chunksOutside(allowed: readonly string[], vertical: string | undefined): Promise<Set<number>> {
    const params: unknown[] = [];
    let sql = 'SELECT id FROM knowledge_chunks WHERE jurisdiction IS NOT NULL';
    if (vertical !== undefined) {
      params.push(vertical);
      sql += ` AND vertical = $${params.length}`;
    }
    if (allowed.length > 0) {
      sql += ` AND jurisdiction NOT IN (${allowed.map((key) => `$${params.push(key)}`).join(', ')})`;
    }
    const rows: { id: number | string }[] = await readQuery(this.dataSource, portableSql(this.dataSource, sql), params);
    return new Set(rows.map((row) => Number(row.id)));
  }

  /** The jurisdiction key of these chunks, by id (chunks that no longer exist are left out). */
  private async chunkJurisdictions(ids: number[]): Promise<Map<number, string | null>> {
    if (ids.length === 0) return new Map();
    const rows = await this.chunks.find({ select: { id: true, jurisdiction: true }, where: { id: In(ids) } });
    return new Map(rows.map((row) => [Number(row.id), row.jurisdiction ?? null]));
  }

  /**
   * Chunks for `query`, best first: BM25 over the visitor's own terms plus EXPANSION_WEIGHT x BM25
   * over related thesaurus words, ranked together in one pass of the index (the `limit` best by
   * that sum, exactly). A chunk matched through a related word counts as matching the visitor's
   * term it stands in for.
   */
  private async searchChunks(query: string, vertical: string | undefined, limit: number, expand: boolean, text = true): Promise<ScoredChunk[]> {
    const { terms, expansions } = analyseQuery(query);
    if (terms.length === 0) return [];
    const related = expand ? expansions : [];
    const exclude = this.excluded();
    // Checked again once the search is done: an item hidden while it ranked (its old chunks about
    // to be deleted in slices) is left out whole, never in part.
    const chunks = withoutHidden(
      await this.tracked(
        this.index.search(
          [...terms.map((text) => ({ text, weight: 1 })), ...related.map((e) => ({ text: e.term, weight: EXPANSION_WEIGHT }))],
          { vertical, limit, text, exclude },
        ),
      ),
      exclude,
    );
    if (related.length === 0) return chunks;

    const own = new Set(terms);
    const standsFor = new Map(related.map((e) => [e.term, e.for]));
    const order = new Map(terms.map((t, i) => [t, i]));
    return chunks.map((chunk) => {
      const matched = new Set<string>();
      for (const word of chunk.matchedTerms) {
        if (own.has(word)) matched.add(word);
        for (const term of standsFor.get(word) ?? []) matched.add(term);
      }
      return { ...chunk, matchedTerms: [...matched].sort((a, b) => (order.get(a) ?? 0) - (order.get(b) ?? 0)) };
    });
  }

  /** The text of these chunks, by id (chunks that no longer exist are left out). */
  private async chunkTexts(ids: number[]): Promise<Map<number, string>> {
    if (ids.length === 0) return new Map();
    return this.index.chunkTexts(ids);
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

  /**
   * Makes the item's attachments exactly `wanted`: new ones are added, ones whose id is kept
   * without content keep their stored file, and the rest are removed.
   */
  private async replaceAttachments(manager: EntityManager, itemId: string, wanted: CheckedAttachment[], now: number): Promise<KnowledgeAttachment[]> {
    const existing = await manager.find(KnowledgeAttachment, { where: { itemId } });
    const byId = new Map(existing.map((a) => [a.id, a]));
    const result: KnowledgeAttachment[] = [];
    for (const [ord, a] of wanted.entries()) {
      const previous = a.id ? byId.get(a.id) : undefined;
      if (a.content === undefined) {
        if (!previous) throw KnowledgeError.invalid('attachments', `"${a.name}" has no content`);
        result.push({ ...previous, name: a.name, ord });
        continue;
      }
      result.push(
        manager.create(KnowledgeAttachment, {
          id: previous ? previous.id : randomUUID(),
          itemId,
          name: a.name,
          type: a.type,
          size: a.size,
          content: a.content,
          uploadedAt: previous?.uploadedAt ?? a.uploadedAt ?? now,
          ord,
        }),
      );
    }
    await manager.delete(KnowledgeAttachment, { itemId });
    for (const row of result) await manager.insert(KnowledgeAttachment, row);
    return result;
  }

  /** Replaces the item's chunks with a fresh chunking of its content and its text attachments. */
  private async reindex(manager: EntityManager, item: KnowledgeItem, attachments: KnowledgeAttachment[] = []): Promise<void> {
    await manager.delete(KnowledgeChunk, { itemId: item.id });
    await this.insertChunks(manager, chunkRowsOf(item, attachments));
  }

  /**
   * Multi-row INSERTs. On Postgres the index triggers run once per statement and append each
   * (term, block) row once for all the chunks of the statement, so one statement for many items
   * (createMany) costs far less than one per item.
   */
  private async insertChunks(manager: EntityManager, rows: ChunkRowInput[]): Promise<void> {
    for (let i = 0; i < rows.length; i += CHUNK_INSERT_BATCH) {
      await manager
        .createQueryBuilder()
        .insert()
        .into(KnowledgeChunk)
        .values(rows.slice(i, i + CHUNK_INSERT_BATCH))
        .updateEntity(false)
        .execute();
    }
  }

  // --- large items on SQLite ---------------------------------------------------------------------
  //
  // SQLite has one writer: a 10 MB attachment (~10,000 chunks, each updating ~100 rows of the
  // search index) indexed in one transaction held it for 8-15 s, and every chat's writes waited
  // (issue 18, defect 2). A large item is therefore stored in a first transaction marked
  // `index_pending`, then its old chunks are deleted and its new ones inserted in slices of about
  // SLICE_MS each (other writes take their turn in the write queue between slices), then the mark
  // is cleared. Until then no search returns any of its chunks (hiddenChunks: ids are added inside
  // the transaction that writes them, before it commits; they are shown again once the searches
  // that began before the last commit have ranked), so a search never sees half an item: during
  // the indexing the item is found under neither its old nor its new text. The collection
  // statistics (N, average length, document frequencies) do count the hidden chunks meanwhile.
  // A server stopped half-way leaves the mark: the next start indexes the item again
  // (resumePending). Writes of one item wait for each other (lockedItem).

  /** Runs `work` after the writes of item `id` queued before it. */
  private lockedItem<T>(id: string, work: () => Promise<T>): Promise<T> {
    const previous = this.itemWrites.get(id) ?? Promise.resolve();
    const run = previous.then(work);
    const settled = run.catch(() => undefined);
    this.itemWrites.set(id, settled);
    void settled.then(() => {
      if (this.itemWrites.get(id) === settled) this.itemWrites.delete(id);
    });
    return run;
  }

  /**
   * A new or updated item's chunks: written here when it is small (`oldChunks` chunks to replace
   * and little text), else marked for indexInSlices, old chunks hidden at once. Returns whether sliced.
   */
  private async reindexOrMark(manager: EntityManager, item: KnowledgeItem, attachments: KnowledgeAttachment[], oldChunks: number): Promise<boolean> {
    if (indexedChars(item, attachments) <= SLICED_TEXT_CHARS && oldChunks <= SLICED_CHUNKS) {
      await this.reindex(manager, item, attachments);
      return false;
    }
    await this.markPending(manager, item.id);
    await this.hideChunksOf(manager, item.id);
    return true;
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
  private async unhide(id: string): Promise<void> {
    const hidden = this.hiddenByItem.get(id);
    if (!hidden) return;
    await Promise.allSettled([...this.reads]);
    for (const chunk of hidden) this.hiddenChunks.delete(chunk);
    this.hiddenByItem.delete(id);
  }

  /** A search, counted among those under way until it settles (see unhide). */
  private tracked<T>(search: Promise<T>): Promise<T> {
    this.reads.add(search);
    search.then(
      () => this.reads.delete(search),
      () => this.reads.delete(search),
    );
    return search;
  }

  /** What a search leaves out: hidden chunks (live: ids hidden after the call count too) and `also`. */
  private excluded(also?: ReadonlySet<number>): ChunkIdSet | undefined {
    if (!this.sliced) return also;
    const hidden = this.hiddenChunks;
    return { get size() { return hidden.size + (also?.size ?? 0); }, has: (id: number) => hidden.has(id) || (also?.has(id) ?? false) };
  }

  /** Replaces a marked item's chunks (hidden meanwhile) slice by slice, then clears the mark. */
  private async indexInSlices(item: KnowledgeItem, attachments: KnowledgeAttachment[]): Promise<void> {
    const release = this.index.holdWarming();
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
      const ms = await this.transaction(async (manager) => {
        const started = performance.now();
        await this.insertChunks(manager, batch);
        await this.hideChunksOf(manager, item.id, batch[0].ord, batch[batch.length - 1].ord);
        return performance.now() - started;
      });
      size = nextSliceSize(size, ms);
      await this.breathe(ms);
    }
    await this.transaction((manager) => this.markPending(manager, item.id, false));
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
  private async deleteChunksInSlices(id: string): Promise<void> {
    const release = this.index.holdWarming();
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
      const { deleted, ms } = await this.transaction(async (manager) => {
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
  private async hideUnfinished(): Promise<string[]> {
    const rows: { id: string; chunk: number | string | null }[] = await readQuery(
      this.dataSource,
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
  private async resumeUnfinished(ids: string[]): Promise<void> {
    for (const id of ids) {
      await this.lockedItem(id, async () => {
        const found = await this.transaction(async (manager) => {
          const item = await manager.findOneBy(KnowledgeItem, { id });
          if (!item) return undefined;
          await this.hideChunksOf(manager, id);
          return { item, attachments: await manager.find(KnowledgeAttachment, { where: { itemId: id }, order: { ord: 'ASC' } }) };
        });
        if (!found) return this.unhide(id);
        this.logger.log(`Indexing "${found.item.title}" again (left unfinished by the last run)`);
        await this.indexInSlices(found.item, found.attachments);
        this.written();
      });
    }
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

/** The chunks not (or no longer) excluded: `exclude` is live, so it also holds ids hidden after the search began. */
function withoutHidden<T extends { chunkId: number }>(chunks: T[], exclude: ChunkIdSet | undefined): T[] {
  return exclude && exclude.size > 0 ? chunks.filter((chunk) => !exclude.has(chunk.chunkId)) : chunks;
}
