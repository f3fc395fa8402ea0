/**
 * What the SQLite and Postgres search indexes share: the search cache, keeping it warm
 * (CacheWarmer: at startup, after writes, and after a search that found it emptied by another
 * process' write), and the chunk sample the warm-up picks its terms from. A dialect supplies the
 * SQL that reads the index and its stemmer.
 */
import { Logger } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { CacheWarmer, sampleIds, WarmReport } from './cache-warmer';
import { VerticalStats } from './postings-format';
import { ChunkFetch, IndexRead, PostingsReader, ScoringOptions, searchPostings, StemmedQuery } from './postings-search';
import { SearchCache, signatureOf } from './search-cache';
import type { ScoredSearch, SearchOptions } from './search-index-types';
import { readQuery } from '../database/sql';

/** Memory for what searches read (postings, 5 bytes each, their impacts, and chunk records). */
const CACHE_BYTES = 64 * 1024 * 1024;
/**
 * With trustOwnWrites: how long after a statement saw the index's versions a warm search may be
 * answered from memory without reading them again (while no write was made here since). Bounds
 * how late a write made outside this server (by hand, with the sqlite3 shell) is seen.
 */
export const FRESH_MS = 2000;
/**
 * While searches came within this long, the versions are read again every FRESH_MS / 2 in the
 * background, so that a visitor asking every few seconds is answered from memory too.
 */
const KEEP_FRESH_MS = 60_000;

export abstract class PostingsSearchIndex {
  protected readonly cache = new SearchCache(CACHE_BYTES);
  protected readonly reader: PostingsReader;
  private readonly warmer: CacheWarmer;
  private readonly logger = new Logger('KnowledgeSearch');
  /** Every write to the index is this server's, and it calls written() (see trustOwnWrites). */
  private ownWrites = false;
  /** Writes committed here (see written). */
  private writes = 0;
  /** The versions the last statement saw, with the writes counted and the time when it began. */
  private seen: { signature: string; writes: number; at: number } | undefined;
  /** A background read of the versions is under way (see fresh). */
  private renewing = false;
  /** When fresh() was last asked (a search), and the timer that keeps the versions read meanwhile (KEEP_FRESH_MS). */
  private searchedAt = -Infinity;
  private keeper: NodeJS.Timeout | undefined;

  constructor(
    protected readonly dataSource: DataSource,
    private readonly scoring: ScoringOptions,
  ) {
    this.reader = {
      read: async (terms, blocks) => {
        const since = this.since();
        const read = await this.read(terms, blocks);
        this.saw(read.stats, since);
        return read;
      },
      chunks: async (ids, withText) => {
        const since = this.since();
        const fetched = await this.chunks(ids, withText);
        this.saw(fetched.stats, since);
        this.cache.addRows(fetched.rows, fetched.stats, withText);
        return fetched;
      },
      sampleChunks: (size) => this.sampleChunks(size),
      stems: (words) => this.stemWords(words),
    };
    this.warmer = new CacheWarmer(this.reader, this.cache, scoring, (error) => {
      // A warm-up the closing of the database interrupted is no failure.
      if (this.dataSource.isInitialized) this.logger.warn(`Search cache warm-up failed: ${String(error)}`);
    });
  }

  /**
   * This server makes every write to the index (the embedded mode: its own SQLite file, no other
   * server) and calls written() after each: warm searches are then answered from memory while no
   * write was made since a statement last saw the versions (for FRESH_MS at most), instead of
   * checking the versions with a statement each. That statement, a trip through the thread pool,
   * was the larger part of retrieval time at 100 concurrent chats (bench/stream.ts).
   */
  trustOwnWrites(): void {
    this.ownWrites = true;
    this.keeper ??= setInterval(() => {
      if (performance.now() - this.searchedAt < KEEP_FRESH_MS) this.renew(FRESH_MS / 2);
    }, FRESH_MS / 2);
    this.keeper.unref();
  }

  /** A write to the index committed here (see trustOwnWrites). */
  written(): void {
    this.writes += 1;
  }

  private since(): { writes: number; at: number } {
    return { writes: this.writes, at: performance.now() };
  }

  private saw(stats: VerticalStats[], since: { writes: number; at: number }): void {
    if (this.ownWrites && (!this.seen || since.at >= this.seen.at)) this.seen = { signature: signatureOf(stats), ...since };
  }

  /**
   * Whether the cache holds the index as it is (see trustOwnWrites). Past half of FRESH_MS, a
   * statement reads the versions again in the background (and every FRESH_MS / 2 while searches
   * came in the last KEEP_FRESH_MS), so that searches keep being answered from memory; only the
   * first after a quiet minute reads them itself.
   */
  private fresh(): boolean {
    // Searches are coming: the timer keeps the versions read (also after this one reads them itself).
    this.searchedAt = performance.now();
    const seen = this.seen;
    if (seen === undefined || seen.writes !== this.writes || seen.signature !== this.cache.version()) return false;
    if (this.searchedAt - seen.at >= FRESH_MS) return false;
    this.renew(FRESH_MS / 2);
    return true;
  }

  /** Reads the versions again in the background when the last statement that saw them began `olderThan` ms ago or more. */
  private renew(olderThan: number): void {
    if (this.renewing || (this.seen && performance.now() - this.seen.at < olderThan)) return;
    this.renewing = true;
    void this.reader
      .chunks([], false)
      .catch(() => undefined)
      .finally(() => (this.renewing = false));
  }


  /** See KnowledgeSearchIndex.warm. */
  warm(): Promise<WarmReport> {
    return this.warmer.warm();
  }

  scheduleWarm(): void {
    this.warmer.schedule();
  }

  holdWarming(): () => void {
    return this.warmer.hold();
  }

  close(): Promise<void> {
    clearInterval(this.keeper);
    this.keeper = undefined;
    return this.warmer.stop();
  }

  /** Ranks `query` through `reader` (this.reader, or one a dialect primed) and the cache. */
  protected async searchStemmed(reader: PostingsReader, query: StemmedQuery, options: SearchOptions): Promise<ScoredSearch> {
    const result = await searchPostings(reader, this.cache, query, {
      ...this.scoring,
      vertical: options.vertical,
      exclude: options.exclude,
      limit: Math.max(1, Math.floor(options.limit)),
      withText: options.text !== false,
      ...(reader === this.reader && this.ownWrites ? { fresh: () => this.fresh() } : {}),
    });
    // A write (here or by another process) emptied the cache: fill it again in the background.
    if (this.cache.hasDropped()) this.warmer.schedule();
    return { chunks: result.hits, wordIdf: result.wordIdf };
  }

  /**
   * The texts of these chunks (a chunk gone from the index has none). Held in the search cache
   * under its versions: a search the cache answered (its statement checked the versions) quotes
   * its passages without a second statement, one read less on the way to the first token.
   */
  async chunkTexts(ids: number[]): Promise<Map<number, string>> {
    const texts = new Map<number, string>();
    const missing: number[] = [];
    for (const id of ids) {
      const text = this.cache.text(id);
      if (text !== undefined) texts.set(id, text);
      else if (Number.isSafeInteger(id)) missing.push(id);
    }
    if (missing.length === 0) return texts;
    const version = this.cache.version();
    // Integers, inlined (the same SQL on both dialects).
    const rows: { id: number | string; text: string }[] = await readQuery(this.dataSource, `SELECT id, text FROM knowledge_chunks WHERE id IN (${missing.join(', ')})`);
    for (const row of rows) {
      const id = Number(row.id);
      texts.set(id, row.text);
      this.cache.addText(id, row.text, version);
    }
    return texts;
  }

  /** In ONE statement: statistics, postings of `terms`, chunk records of `blocks` (PostingsReader.read). */
  protected abstract read(terms: string[], blocks: number[]): Promise<IndexRead>;
  /** The chunks with these ids and the statistics (PostingsReader.chunks). */
  protected abstract chunks(ids: number[], withText: boolean): Promise<ChunkFetch>;
  /** The index terms of each word (PostingsReader.stems). */
  protected abstract stemWords(words: string[]): Promise<string[][]>;

  /** Title and text of up to `size` random chunks. */
  private async sampleChunks(size: number): Promise<string[]> {
    const [range] = await readQuery(this.dataSource, 'SELECT min(id) AS lo, max(id) AS hi FROM knowledge_chunks');
    const ids = sampleIds(Number(range?.lo), Number(range?.hi), size);
    if (ids.length === 0) return [];
    // Integers from sampleIds, inlined (the same SQL on both dialects).
    const rows: { title: string; text: string }[] = await readQuery(this.dataSource, `SELECT title, text FROM knowledge_chunks WHERE id IN (${ids.join(', ')})`);
    return rows.map((row) => `${row.title} ${row.text}`);
  }
}
