/** What a website import keeps between pages, runs and restarts (stored as JSON on its row). */
export interface SiteImportOptions {
  vertical: string;
  category: string;
  maxPages: number;
  maxDepth: number;
  resyncHours: number;
  mode: 'page' | 'sitemap';
}

/** One imported page: its item and what tells whether it changed. */
export interface PageRecord {
  itemId: string;
  title: string;
  hash: string;
  etag?: string;
  lastModified?: string;
}

export interface CrawlError {
  url: string;
  message: string;
}

export interface CrawlState {
  run: 'import' | 'resync';
  /** The frontier was filled (the sitemap read, or the start page and known pages queued). */
  seeded: boolean;
  /**
   * Pages still to handle, in order, with their link depth from the start; `disallowed` when
   * robots.txt disallowed the page as it was queued (it is passed over, and takes no place of
   * the page cap).
   */
  frontier: Array<{ url: string; depth: number; disallowed?: boolean }>;
  /** Every URL queued in this run (never queued twice). */
  queued: string[];
  /** Every page this import keeps, by URL. */
  pages: Record<string, PageRecord>;
  /** URLs fetched in this run (what the page cap counts). */
  handled: number;
  added: number;
  updated: number;
  removed: number;
  unchanged: number;
  skipped: number;
  errors: CrawlError[];
  notes: string[];
  startedAt: number | null;
  finishedAt: number | null;
}

export function freshState(run: 'import' | 'resync', pages: Record<string, PageRecord> = {}): CrawlState {
  return { run, seeded: false, frontier: [], queued: [], pages, handled: 0, added: 0, updated: 0, removed: 0, unchanged: 0, skipped: 0, errors: [], notes: [], startedAt: null, finishedAt: null };
}
