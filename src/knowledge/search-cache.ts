/**
 * The per-server cache of what searches have read (postings, chunk records, chunk texts), valid
 * while the index's versions stay the same, and the collection statistics helpers.
 */
import { postingsSize, type ChunkBlock, type TermPostings, type VerticalStats } from './postings-format';

/**
 * What searches have read (postings per term, chunk records per block), valid while the
 * statistics' versions stay the same (any change to any chunk changes its vertical's version,
 * see the triggers), and bounded in bytes (least recently used first out).
 */
export class SearchCache {
  private signature = '';
  /** The statistics the cache was filled under (see validate). */
  private stats: VerticalStats[] | undefined;
  private readonly terms = new Map<string, TermPostings>();
  private readonly blocks = new Map<number, ChunkBlock>();
  private bytes = 0;
  /**
   * Chunk texts quoted in prompts, by chunk id (ids are never reused and a chunk's text never
   * changes in place; a deleted chunk changes its vertical's version, which empties this too).
   */
  private readonly texts = new Map<number, string>();
  private textBytes = 0;
  /** Chunk records (item, position, title) of chunks searches returned, by chunk id (see rows). */
  private readonly records = new Map<number, { itemId: string; ord: number; title: string }>();
  private recordBytes = 0;
  /** The terms held when the cache was last emptied, most recently used first (see takeDropped). */
  private dropped: string[] = [];

  constructor(
    readonly maxBytes: number,
    readonly maxTextBytes = 8 * 1024 * 1024,
  ) {}

  /** Empties the cache unless `stats` carry the versions it was filled under. */
  validate(stats: VerticalStats[]): boolean {
    const signature = signatureOf(stats);
    if (signature === this.signature) return true;
    this.stats = stats;
    if (this.terms.size > 0) this.dropped = [...this.terms.keys()].reverse();
    this.terms.clear();
    this.blocks.clear();
    this.texts.clear();
    this.records.clear();
    this.bytes = 0;
    this.textBytes = 0;
    this.recordBytes = 0;
    this.signature = signature;
    return false;
  }

  /** The versions the cache holds data for (pass it back to addText). */
  version(): string {
    return this.signature;
  }

  /** A chunk's text, if held (counts as a use). */
  text(chunkId: number): string | undefined {
    const text = this.texts.get(chunkId);
    if (text !== undefined) {
      this.texts.delete(chunkId);
      this.texts.set(chunkId, text);
    }
    return text;
  }

  /** Keeps a chunk's text read while the cache held `version` (ignored if it moved on since). */
  addText(chunkId: number, text: string, version: string): void {
    if (version !== this.signature || this.signature === '' || this.texts.has(chunkId)) return;
    const size = 2 * text.length + 32;
    if (size > this.maxTextBytes / 4) return;
    this.texts.set(chunkId, text);
    this.textBytes += size;
    for (const [key, value] of this.texts) {
      if (this.textBytes <= this.maxTextBytes) break;
      this.texts.delete(key);
      this.textBytes -= 2 * value.length + 32;
    }
  }

  /**
   * The records of these chunks (item, position, title; the text too when `withText`), if all are
   * held. Like texts, a chunk's record never changes under its id, and the cache empties when any
   * chunk is deleted.
   */
  rows(chunkIds: number[], withText: boolean): ChunkRow[] | undefined {
    const rows: ChunkRow[] = [];
    for (const chunkId of chunkIds) {
      const record = this.records.get(chunkId);
      if (!record) return undefined;
      const text = withText ? this.texts.get(chunkId) : '';
      if (text === undefined) return undefined;
      rows.push({ chunkId, itemId: record.itemId, ord: record.ord, title: record.title, text });
    }
    return rows;
  }

  /** Keeps the records (and texts, when fetched) of chunks read under `stats` (ignored if those are not the cache's versions). */
  addRows(rows: ChunkRow[], stats: VerticalStats[], withText: boolean): void {
    if (!this.current(stats) || this.signature === '') return;
    for (const row of rows) {
      const chunkId = Number(row.chunkId);
      if (!this.records.has(chunkId)) {
        const record = { itemId: row.itemId, ord: Number(row.ord), title: row.title };
        this.records.set(chunkId, record);
        this.recordBytes += recordSize(record);
      }
      if (withText) this.addText(chunkId, row.text, this.signature);
    }
    for (const [key, value] of this.records) {
      if (this.recordBytes <= this.maxTextBytes / 4) break;
      this.records.delete(key);
      this.recordBytes -= recordSize(value);
    }
  }

  /** The terms the last emptying dropped, most recently used first (once; then none until the next). */
  takeDropped(): string[] {
    const dropped = this.dropped;
    this.dropped = [];
    return dropped;
  }

  /** Whether an emptying dropped terms that takeDropped has not taken yet. */
  hasDropped(): boolean {
    return this.dropped.length > 0;
  }

  /** The statistics the cache holds data for (undefined until a first validate). */
  statistics(): VerticalStats[] | undefined {
    return this.stats;
  }

  /** The terms held. */
  termNames(): string[] {
    return [...this.terms.keys()];
  }

  /** A held term's postings, without counting as a use. */
  peek(term: string): TermPostings | undefined {
    return this.terms.get(term);
  }

  /** Whether the term is held (without counting as a use). */
  has(term: string): boolean {
    return this.terms.has(term);
  }

  /** Bytes held (postings and their impacts). */
  size(): number {
    return this.bytes;
  }

  /** True when `stats` are those the cache holds data for. */
  current(stats: VerticalStats[]): boolean {
    return signatureOf(stats) === this.signature;
  }

  term(term: string): TermPostings | undefined {
    const entry = this.terms.get(term);
    if (entry) {
      this.terms.delete(term);
      this.terms.set(term, entry);
    }
    return entry;
  }

  block(block: number): ChunkBlock | undefined {
    return this.blocks.get(block);
  }

  /** Keeps postings read under `stats` (ignored if those are not the cache's versions). */
  addTerm(term: string, postings: TermPostings, stats: VerticalStats[]): void {
    const size = postingsSize(postings);
    if (!this.current(stats) || size > this.maxBytes / 2) return;
    const previous = this.terms.get(term);
    if (previous) {
      this.bytes -= postingsSize(previous);
      this.terms.delete(term);
    }
    this.terms.set(term, postings);
    this.bytes += size;
    for (const [key, value] of this.terms) {
      if (this.bytes <= this.maxBytes) break;
      this.terms.delete(key);
      this.bytes -= postingsSize(value);
    }
  }

  /** Keeps a block's chunk records read under `stats` (5 to 13 bytes per chunk id; not evicted). */
  addBlock(block: number, chunks: ChunkBlock, stats: VerticalStats[]): void {
    if (this.current(stats)) this.blocks.set(block, chunks);
  }
}

/** About what a chunk record takes in memory (its strings, two bytes a character, and the object). */
function recordSize(record: { itemId: string; title: string }): number {
  return 2 * (record.itemId.length + record.title.length) + 64;
}

/** The versions `stats` carry, as one string (what SearchCache.version returns once it holds data for them). */
export function signatureOf(stats: VerticalStats[]): string {
  return stats
    .map((s) => `${s.code}:${s.version}:${s.chunks}:${s.tokens}`)
    .sort()
    .join(',');
}

/** N and average document length of a scope: one vertical's, or all of them. */
export function collectionStats(stats: VerticalStats[], vertical?: string): { n: number; avgdl: number; code?: number } {
  const scope = vertical === undefined ? stats : stats.filter((s) => s.vertical === vertical);
  const n = scope.reduce((sum, s) => sum + s.chunks, 0);
  const tokens = scope.reduce((sum, s) => sum + s.tokens, 0);
  return { n, avgdl: n > 0 ? tokens / n : 0, code: vertical === undefined ? undefined : stats.find((s) => s.vertical === vertical)?.code };
}

/** A chunk's row as the final fetch returns it. */
export interface ChunkRow {
  chunkId: number;
  itemId: string;
  ord: number;
  title: string;
  text: string;
}
