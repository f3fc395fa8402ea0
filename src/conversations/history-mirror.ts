/**
 * The conversations' history as the database holds it, kept in memory by the one server that
 * writes it (the embedded mode, `soleServer`), so that a chat's history needs no statement.
 *
 * A statement is a trip through libuv's thread pool, and under many concurrent chats the history
 * read was the larger part of the time between a question and the provider call (figures in
 * docs/architecture.md). Answered from here, that step takes no I/O at all.
 *
 * What an entry holds is exactly what openTurn's read would return now:
 * - the rows that read returned (newest first), kept only if no write of that conversation
 *   ended while the read ran (it could have missed the write);
 * - then what this server stored in that conversation since, in the order it was committed: each
 *   turn's question and streaming reply (`started`), and the reply's end (`ended`, in place).
 * Anything else that changes a scope's conversation (New chat, a delete, a write given up, a turn
 * stored in another conversation, the retention purge) forgets the entry: the next read goes to
 * the database. Entries also expire (MAX_AGE_MS) and are bounded in number.
 */
import { LRUCache } from 'lru-cache';

/** A row of the history read: the open conversation's id and one of its messages (null ones when it has none). */
export interface HistoryRow {
  cid: string;
  id: string | null;
  role: 'user' | 'agent' | null;
  content: string | null;
  status: string | null;
}

/** What `started` needs of a turn. */
export interface StartedTurn {
  conversationId: string;
  userMessageId: string;
  replyId: string;
  question: string;
}

/** Scopes kept at most, and the memory their messages may take (least recently used out first). */
const MAX_ENTRIES = 20_000;
const MAX_BYTES = 64 * 1024 * 1024;
/** An entry is read again from the database at the latest this long after it was filled. */
const MAX_AGE_MS = 10 * 60_000;

interface Entry {
  visitorKey: string;
  /** Newest first, at most `limit`. */
  rows: HistoryRow[];
  filledAt: number;
  /** About what `rows` take in memory (see sizeOf). */
  bytes: number;
}

/** About what rows take in memory: their strings (two bytes a character) and a little per row. */
function sizeOf(rows: HistoryRow[]): number {
  let bytes = 0;
  for (const row of rows) bytes += 96 + 2 * ((row.content?.length ?? 0) + (row.id?.length ?? 0) + row.cid.length);
  return bytes;
}

export class HistoryMirror {
  /** The scopes held, least recently used out first past maxEntries scopes or maxBytes (Entry.bytes; at least 1 each). */
  private readonly entries: LRUCache<string, Entry>;
  /** Scopes being read from the database, with the changes that ended while they were. */
  private readonly reading = new Map<string, { readers: number; changes: number }>();

  private readonly now: () => number;

  constructor(
    /** Rows the history read returns at most. */
    private readonly limit: number,
    options: { now?: () => number; maxEntries?: number; maxBytes?: number } = {},
  ) {
    this.now = options.now ?? (() => performance.now());
    this.entries = new LRUCache<string, Entry>({
      max: options.maxEntries ?? MAX_ENTRIES,
      maxSize: options.maxBytes ?? MAX_BYTES,
      sizeCalculation: (entry) => Math.max(1, entry.bytes),
    });
  }

  /** The rows the history read would return now, if this scope is held. */
  get(scope: string): HistoryRow[] | undefined {
    const entry = this.entries.get(scope);
    if (!entry) return undefined;
    if (this.now() - entry.filledAt > MAX_AGE_MS) {
      this.drop(scope);
      return undefined;
    }
    return entry.rows;
  }

  /** Runs the history read of a scope that is not held, and keeps what it returns unless the scope changed meanwhile. */
  async read(scope: string, visitorKey: string, read: () => Promise<HistoryRow[]>): Promise<HistoryRow[]> {
    let state = this.reading.get(scope);
    if (!state) this.reading.set(scope, (state = { readers: 0, changes: 0 }));
    state.readers += 1;
    const changesBefore = state.changes;
    try {
      const rows = await read();
      if (state.changes === changesBefore) this.keep(scope, visitorKey, rows.slice(0, this.limit));
      return rows;
    } finally {
      state.readers -= 1;
      if (state.readers === 0) this.reading.delete(scope);
    }
  }

  /**
   * A turn's question and streaming reply are stored (the database put them after every message
   * stored before: writes are committed in that order).
   */
  started(scope: string, turn: StartedTurn): void {
    this.changed(scope);
    const entry = this.entries.peek(scope);
    if (!entry) return;
    const rows = entry.rows.filter((row) => row.role !== null);
    if (rows.some((row) => row.id === turn.replyId)) return;
    if (rows.length > 0 && rows[0].cid !== turn.conversationId) {
      // Stored in another conversation (the scope's was closed meanwhile): read it again.
      this.drop(scope);
      return;
    }
    rows.unshift(
      { cid: turn.conversationId, id: turn.replyId, role: 'agent', content: '', status: 'streaming' },
      { cid: turn.conversationId, id: turn.userMessageId, role: 'user', content: turn.question, status: 'complete' },
    );
    this.keep(scope, entry.visitorKey, rows.slice(0, this.limit), entry.filledAt);
  }

  /** A turn's reply end is stored: its row takes the text and status. */
  ended(scope: string, replyId: string, outcome: { status: string; text: string }): void {
    this.changed(scope);
    const entry = this.entries.peek(scope);
    if (!entry) return;
    const row = entry.rows.find((r) => r.id === replyId);
    // Not among the rows held (older than the limit, or its start was never seen here): read it again.
    if (!row) {
      this.drop(scope);
      return;
    }
    row.content = outcome.text;
    row.status = outcome.status;
    this.keep(scope, entry.visitorKey, entry.rows, entry.filledAt);
  }

  /** The scope's conversation changed otherwise (closed, deleted, a write given up): read it again. */
  forget(scope: string): void {
    this.changed(scope);
    this.drop(scope);
  }

  /** Every scope of this visitor (their conversations were deleted). */
  forgetVisitor(visitorKey: string): void {
    for (const [scope, entry] of [...this.entries.entries()]) if (entry.visitorKey === visitorKey) this.drop(scope);
    for (const state of this.reading.values()) state.changes += 1;
  }

  /** Everything (conversations were purged). */
  clear(): void {
    this.entries.clear();
    for (const state of this.reading.values()) state.changes += 1;
  }

  /** Scopes held. */
  get size(): number {
    return this.entries.size;
  }

  /** About the memory the held messages take. */
  get heldBytes(): number {
    return this.entries.calculatedSize;
  }

  private changed(scope: string): void {
    const state = this.reading.get(scope);
    if (state) state.changes += 1;
  }

  /** Holds `rows` for the scope (as the most recently used), then lets the least recently used go while over the bounds. */
  private keep(scope: string, visitorKey: string, rows: HistoryRow[], filledAt = this.now()): void {
    this.drop(scope);
    this.entries.set(scope, { visitorKey, rows, filledAt, bytes: sizeOf(rows) });
  }

  private drop(scope: string): void {
    this.entries.delete(scope);
  }
}
