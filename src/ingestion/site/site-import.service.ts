/**
 * Website import: a start page or a sitemap becomes one knowledge item per page (its main content
 * as Markdown, its title, its URL). Starting checks the address and reads the start page or the
 * sitemap at once, so a bad address, a 404 or a malformed sitemap is a 400 and nothing is stored;
 * the crawl then runs as a job (in process, or on BullMQ with REDIS_URL), page by page:
 *
 * - within the start page's host and folder (a sitemap: its host), at most `maxPages` pages and
 *   `maxDepth` links deep, obeying robots.txt and its Crawl-delay (else SITE_IMPORT_DELAY_MS);
 * - every request through safeFetch (address checked after resolution and on each redirect,
 *   5 MB and 15 s per page); HTML pages through the file importer's converter, PDFs through pdf.js,
 *   other types passed over with the reason listed;
 * - the state (queue, pages, counts) is saved after every page, so a cancelled import resumes
 *   where it stopped and one cut off by a restart resumes when the server starts again.
 *
 * A re-sync asks again for the start (the sitemap read anew) and for every page already imported,
 * conditionally (ETag, Last-Modified): a changed page (content hash) updates its item, a page that
 * answers 404 or 410 removes its item, a new page adds one, an unchanged page is left alone. It
 * runs on demand and every `resyncHours` (a sweep job looks for imports that are due).
 */
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleInit } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { createHash, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import robotsParser from 'robots-parser';
import { DataSource, In, Repository } from 'typeorm';
import { AdminEventsService } from '../../admin-events/admin-events.service';
import { AppError } from '../../common/app-error';
import { type AllowList, parseAllowList, safeFetch, SafeFetchError, type SafeFetchOptions, type SafeResponse } from '../../common/safe-fetch';
import { APP_CONFIG, type AppConfig, soleServer } from '../../config/app-config';
import { changedRows } from '../../database/sql';
import { queuedWrite } from '../../database/write-queue';
import { JOB_QUEUE, type JobQueue } from '../../jobs/job-queue';
import { KnowledgeService } from '../../knowledge/knowledge.service';
import { KnowledgeItemInputSchema } from '../../shared/contracts/knowledge';
import type { CheckedSiteImportRequest, SiteImport } from '../../shared/contracts/knowledge-import';
import { firstProblem } from '../../shared/contracts/rules';
import { decodeText } from '../convert/convert-file';
import { mainContent } from '../convert/markdown';
import { pdfToText } from '../convert/pdf';
import { type CrawlState, freshState, type PageRecord, type SiteImportOptions } from './crawl-state';
import { inScope, pageKey, pageLinks, scopeOf } from './links';
import { looksLikeSitemap, parseSitemap, SitemapError } from './sitemap';
import { SiteImportRow } from './site-import.entity';

export const SITE_IMPORT_JOB = 'site-import';
export const SITE_RESYNC_SWEEP_JOB = 'site-import-resync-sweep';
const SWEEP_EVERY_MS = 10 * 60_000;
/** A run that has not saved its state for this long is taken to be dead (its server stopped). */
const STALE_MS = 90_000;
const USER_AGENT = 'SupportAssistantImporter';
const MAX_ERRORS = 100;
const MAX_CHILD_SITEMAPS = 50;
const MAX_CRAWL_DELAY_MS = 30_000;
const SITEMAP_MAX_BYTES = 50 * 1024 * 1024;

interface Robots {
  isAllowed(url: string, ua?: string): boolean | undefined;
  getCrawlDelay(ua?: string): number | undefined;
}

const ALLOW_ALL: Robots = { isAllowed: () => true, getCrawlDelay: () => undefined };

/** The pages a sitemap lists, in its order: at most the cap allowed and the cap disallowed by robots.txt. */
interface SitemapPages {
  entries: Array<{ url: string; disallowed: boolean }>;
  /** Entries robots.txt allows. */
  allowed: number;
  notes: string[];
}

function isHtml(contentType: string | undefined): boolean {
  return /\b(text\/html|application\/xhtml\+xml)\b/i.test(contentType ?? '') || !contentType;
}

function header(response: SafeResponse, name: string): string | undefined {
  const value = response.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * A help center's <title> carries the site's name ("Returns | Example Help Center"); when the
 * page's own first heading begins it, that heading is the title (and leaves the content).
 */
function pageTitle(title: string, markdown: string, h1: string): { title: string; markdown: string } {
  const lead = /^# (.+)\n*/.exec(markdown);
  const heading = h1 || lead?.[1].replace(/\s+/g, ' ').trim() || '';
  if (!heading || heading.length >= title.length || !title.toLowerCase().startsWith(heading.toLowerCase())) return { title, markdown };
  const repeated = lead && lead[1].replace(/\s+/g, ' ').trim().toLowerCase() === heading.toLowerCase();
  return { title: heading, markdown: repeated ? markdown.slice(lead[0].length) : markdown };
}

@Injectable()
export class SiteImportService implements OnModuleInit, OnApplicationBootstrap {
  private readonly logger = new Logger('SiteImport');
  private readonly allow: AllowList;
  /** Runs of this server, to stop them at once on cancel. */
  private readonly running = new Map<string, AbortController>();

  constructor(
    @InjectRepository(SiteImportRow) private readonly rows: Repository<SiteImportRow>,
    private readonly dataSource: DataSource,
    private readonly knowledge: KnowledgeService,
    private readonly adminEvents: AdminEventsService,
    @Inject(JOB_QUEUE) private readonly jobs: JobQueue,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.allow = parseAllowList(config.fetchAllowPrivate);
  }

  onModuleInit(): void {
    this.jobs.register<{ id: string }>(SITE_IMPORT_JOB, async ({ id }) => this.run(id));
    this.jobs.register(SITE_RESYNC_SWEEP_JOB, async () => this.sweep());
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.jobs.repeat(SITE_RESYNC_SWEEP_JOB, SWEEP_EVERY_MS, {});
    // Imports cut off by a stop resume: on the sole server all of them, with several servers those
    // whose run stopped saving (its server is gone).
    const stale = Date.now() - STALE_MS;
    const unfinished = await this.rows.find({ where: { status: In(['queued', 'running']) } });
    for (const row of unfinished) {
      if (row.status === 'running' && !soleServer(this.config) && row.heartbeatAt > stale) continue;
      await this.setStatus(row.id, 'queued');
      await this.enqueue(row.id);
    }
  }

  private fetchOptions(extra: Partial<SafeFetchOptions> = {}): SafeFetchOptions {
    return { allow: this.allow, ...extra, headers: { 'user-agent': USER_AGENT, accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.5', ...(extra.headers ?? {}) } };
  }

  // --- API ---------------------------------------------------------------------------------

  async list(): Promise<SiteImport[]> {
    const rows = await this.rows.find({ order: { createdAt: 'DESC' }, take: 50 });
    return rows.map((row) => this.view(row));
  }

  async get(id: string): Promise<SiteImport> {
    return this.view(await this.row(id));
  }

  private async row(id: string): Promise<SiteImportRow> {
    const row = /^[0-9a-f-]{36}$/i.test(id) ? await this.rows.findOneBy({ id }) : null;
    if (!row) throw new AppError('not_found', `No website import with the id "${id.slice(0, 100)}"`);
    return row;
  }

  /** Checks the address, reads the start page or sitemap, and queues the crawl. */
  async start(request: CheckedSiteImportRequest): Promise<SiteImport> {
    const first = await this.fetchStart(request.url);
    const mode: 'page' | 'sitemap' = looksLikeSitemap(header(first, 'content-type'), first.text()) ? 'sitemap' : 'page';
    const state = freshState('import');
    if (mode === 'sitemap') {
      // robots.txt is read first, so that the pages it disallows take none of the cap's places.
      const { robots, note } = await this.robots(new URL(first.url).origin, new AbortController().signal);
      if (note) state.notes.push(note);
      let listed: SitemapPages;
      try {
        listed = await this.sitemapPages(first.url, first.text(), request.maxPages, robots);
      } catch (error) {
        if (error instanceof SitemapError) throw new AppError('validation_failed', `The sitemap ${first.url} ${error.message}`);
        throw error;
      }
      if (listed.entries.length === 0) throw new AppError('validation_failed', `The sitemap ${first.url} lists no pages on ${new URL(first.url).host}`);
      if (listed.allowed === 0) throw new AppError('validation_failed', note ?? `robots.txt on ${new URL(first.url).host} disallows every page the sitemap ${first.url} lists`);
      state.notes.push(...listed.notes);
      this.queueListed(state, listed);
    } else {
      if (!isHtml(header(first, 'content-type'))) {
        throw new AppError('validation_failed', `${first.url} is neither an HTML page nor a sitemap (it is ${header(first, 'content-type')})`);
      }
      this.queue(state, pageKey(first.url)!, 0);
    }
    state.seeded = true;
    const now = Date.now();
    const row = this.rows.create({
      id: randomUUID(),
      status: 'queued',
      startUrl: first.url,
      options: { vertical: request.vertical, category: request.category, maxPages: request.maxPages, maxDepth: request.maxDepth, resyncHours: request.resyncHours, mode },
      state,
      heartbeatAt: 0,
      nextResyncAt: null,
      createdAt: now,
      updatedAt: now,
    });
    await queuedWrite(this.dataSource, () => this.rows.insert(row));
    await this.enqueue(row.id);
    return this.view(row);
  }

  async cancel(id: string): Promise<SiteImport> {
    const row = await this.row(id);
    if (row.status !== 'queued' && row.status !== 'running') throw new AppError('conflict', `The import is ${row.status}; only a queued or running import can be cancelled`);
    await this.setStatus(id, 'cancelled', ['queued', 'running']);
    this.running.get(id)?.abort();
    return this.get(id);
  }

  async resume(id: string): Promise<SiteImport> {
    const row = await this.row(id);
    if (row.status === 'queued' || row.status === 'running') return this.view(row);
    if (row.status === 'completed') throw new AppError('conflict', 'The import has finished; re-sync it to fetch its pages again');
    if ((await this.setStatus(id, 'queued', ['cancelled', 'failed'])) === 0) throw new AppError('conflict', 'The import changed meanwhile; try again');
    await this.enqueue(id);
    return this.get(id);
  }

  /** Starts a re-sync of a finished (or stopped) import; refused while it runs. */
  async resync(id: string): Promise<SiteImport> {
    const row = await this.row(id);
    if (row.status === 'queued' || row.status === 'running') throw new AppError('conflict', 'The import is still running; re-sync it once it has finished or been cancelled');
    const state = freshState('resync', row.state.pages);
    const changed = await queuedWrite(this.dataSource, () =>
      changedRows(this.dataSource, `UPDATE site_imports SET status = 'queued', state = $1, updated_at = $2 WHERE id = $3 AND status = $4`, [JSON.stringify(state), Date.now(), id, row.status]),
    );
    if (changed === 0) throw new AppError('conflict', 'The import changed meanwhile; try again');
    await this.enqueue(id);
    return this.get(id);
  }

  /** Re-syncs the imports whose scheduled time has come. */
  async sweep(): Promise<void> {
    const due = await this.rows
      .createQueryBuilder('s')
      .where('s.status = :status', { status: 'completed' })
      .andWhere('s.next_resync_at IS NOT NULL AND s.next_resync_at <= :now', { now: Date.now() })
      .getMany();
    for (const row of due) {
      await this.resync(row.id).catch((error: unknown) => this.logger.warn(`Scheduled re-sync of ${row.id} not started: ${error instanceof Error ? error.message : String(error)}`));
    }
  }

  private async enqueue(id: string): Promise<void> {
    await this.jobs.enqueue(SITE_IMPORT_JOB, { id }, { jobId: `${id}-${Date.now()}` });
  }

  private async setStatus(id: string, status: SiteImport['status'], from?: SiteImport['status'][]): Promise<number> {
    const where = from ? ` AND status IN (${from.map((s) => `'${s}'`).join(', ')})` : '';
    return queuedWrite(this.dataSource, () => changedRows(this.dataSource, `UPDATE site_imports SET status = $1, updated_at = $2 WHERE id = $3${where}`, [status, Date.now(), id]));
  }

  private view(row: SiteImportRow): SiteImport {
    const s = row.state;
    const iso = (ms: number | null) => (ms ? new Date(ms).toISOString() : null);
    return {
      id: row.id,
      status: row.status,
      run: s.run,
      url: row.startUrl,
      mode: row.options.mode,
      vertical: row.options.vertical,
      category: row.options.category,
      maxPages: row.options.maxPages,
      maxDepth: row.options.maxDepth,
      resyncHours: row.options.resyncHours,
      pagesDone: s.handled + s.skipped,
      pagesTotal: this.pagesTotal(s, row.options.maxPages),
      added: s.added,
      updated: s.updated,
      removed: s.removed,
      unchanged: s.unchanged,
      skipped: s.skipped,
      items: Object.keys(s.pages).length,
      errors: s.errors,
      notes: s.notes,
      createdAt: new Date(row.createdAt).toISOString(),
      startedAt: iso(s.startedAt),
      finishedAt: iso(s.finishedAt),
      nextResyncAt: row.status === 'completed' ? iso(row.nextResyncAt) : null,
    };
  }

  /** Pages known to handle in this run: those done, those robots.txt disallows, and the others up to the cap. */
  private pagesTotal(s: CrawlState, maxPages: number): number {
    const refused = s.frontier.reduce((n, entry) => n + (entry.disallowed ? 1 : 0), 0);
    return Math.min(maxPages, s.handled) + s.skipped + refused + Math.min(s.frontier.length - refused, Math.max(0, maxPages - s.handled));
  }

  // --- fetching the start --------------------------------------------------------------------

  /** The start page or sitemap, fetched now: any refusal or failure is a 400 naming the reason. */
  private async fetchStart(url: string): Promise<SafeResponse> {
    let response: SafeResponse;
    try {
      response = await safeFetch(url, this.fetchOptions({ maxBytes: SITEMAP_MAX_BYTES }));
    } catch (error) {
      if (error instanceof SafeFetchError) throw new AppError('validation_failed', `${error.message}`, { reason: error.code });
      throw error;
    }
    if (response.status >= 300) throw new AppError('validation_failed', `${response.url} answered ${response.status}; give the address of a page that opens`, { reason: 'http_status', status: response.status });
    return response;
  }

  /**
   * The pages a sitemap (or sitemap index) lists on its host: at most `cap` that robots.txt allows
   * (those it disallows take none of the cap's places; up to the cap of them, or 100, are kept, to
   * be listed as passed over), with notes when there were more.
   */
  private async sitemapPages(sitemapUrl: string, xml: string, cap: number, robots: Robots): Promise<SitemapPages> {
    const origin = new URL(sitemapUrl).origin;
    const notes: string[] = [];
    const seen = new Set<string>();
    const entries: SitemapPages['entries'] = [];
    let allowed = 0;
    let listed = 0;
    let refused = 0;
    const keepRefused = Math.max(cap, MAX_ERRORS);
    const take = (locs: string[]) => {
      for (const loc of locs) {
        const key = pageKey(loc);
        if (!key || new URL(key).origin !== origin || seen.has(key)) continue;
        seen.add(key);
        listed++;
        if (robots.isAllowed(key, USER_AGENT) === false) {
          if (refused++ < keepRefused) entries.push({ url: key, disallowed: true });
        } else if (allowed < cap) {
          allowed++;
          entries.push({ url: key, disallowed: false });
        }
      }
    };
    const top = parseSitemap(xml);
    if (top.kind === 'urlset') take(top.urls);
    else {
      const children = top.urls.map((u) => pageKey(u)).filter((u): u is string => !!u && new URL(u).origin === origin);
      if (children.length > MAX_CHILD_SITEMAPS) notes.push(`The sitemap index lists ${children.length} sitemaps; the first ${MAX_CHILD_SITEMAPS} are read`);
      for (const child of children.slice(0, MAX_CHILD_SITEMAPS)) {
        try {
          const response = await safeFetch(child, this.fetchOptions({ maxBytes: SITEMAP_MAX_BYTES }));
          if (response.status >= 300) {
            notes.push(`The sitemap ${child} answered ${response.status}`);
            continue;
          }
          const inner = parseSitemap(response.text());
          if (inner.kind === 'urlset') take(inner.urls);
          else notes.push(`The sitemap ${child} is itself an index; nested indexes are not followed`);
        } catch (error) {
          notes.push(`The sitemap ${child} ${error instanceof SitemapError ? error.message : `could not be read: ${error instanceof Error ? error.message : String(error)}`}`);
        }
      }
    }
    const n = (count: number) => count.toLocaleString('en-US');
    if (listed - refused > cap) {
      notes.push(
        refused > 0
          ? `The sitemap lists ${n(listed)} pages, ${n(refused)} of them disallowed by robots.txt; the first ${n(cap)} of the others are imported (the page cap)`
          : `The sitemap lists ${n(listed)} pages; the first ${n(cap)} are imported (the page cap)`,
      );
    }
    if (refused > keepRefused) notes.push(`robots.txt disallows ${n(refused)} of the pages the sitemap lists; the first ${n(keepRefused)} are listed as passed over`);
    return { entries, allowed, notes };
  }

  /** A sitemap's pages into the frontier, in the sitemap's order, those robots.txt disallows marked (passed over, never fetched). */
  private queueListed(state: CrawlState, listed: SitemapPages): void {
    for (const entry of listed.entries) this.queue(state, entry.url, 0, entry.disallowed);
  }

  private async robots(origin: string, signal: AbortSignal): Promise<{ robots: Robots; note?: string }> {
    const url = `${origin}/robots.txt`;
    try {
      const response = await safeFetch(url, this.fetchOptions({ signal, maxBytes: 512 * 1024 }));
      if (response.status >= 200 && response.status < 300) return { robots: robotsParser(url, response.text()) as Robots };
      if (response.status >= 500) return { robots: { isAllowed: () => false, getCrawlDelay: () => undefined }, note: `robots.txt answered ${response.status}: the site is not crawled until it answers` };
      return { robots: ALLOW_ALL };
    } catch (error) {
      if (signal.aborted) throw error;
      return { robots: ALLOW_ALL, note: `robots.txt could not be read (${error instanceof Error ? error.message : String(error)}); every page is allowed` };
    }
  }

  // --- the run -------------------------------------------------------------------------------

  private queue(state: CrawlState, url: string, depth: number, disallowed = false): boolean {
    if (state.queued.includes(url)) return false;
    state.queued.push(url);
    state.frontier.push(disallowed ? { url, depth, disallowed } : { url, depth });
    return true;
  }

  private error(state: CrawlState, url: string, message: string): void {
    state.errors.push({ url, message });
    if (state.errors.length > MAX_ERRORS) state.errors.splice(0, state.errors.length - MAX_ERRORS);
  }

  private async saveState(id: string, state: CrawlState): Promise<void> {
    const now = Date.now();
    await queuedWrite(this.dataSource, () => changedRows(this.dataSource, 'UPDATE site_imports SET state = $1, heartbeat_at = $2, updated_at = $2 WHERE id = $3', [JSON.stringify(state), now, id]));
  }

  private async currentStatus(id: string): Promise<SiteImport['status'] | undefined> {
    return (await this.rows.findOne({ select: { id: true, status: true }, where: { id } }))?.status;
  }

  /** The job: claims the import, crawls until the frontier is empty, the cap is reached or it is cancelled. */
  async run(id: string): Promise<void> {
    if (this.running.has(id)) return;
    const claimed = await queuedWrite(this.dataSource, () =>
      changedRows(this.dataSource, `UPDATE site_imports SET status = 'running', heartbeat_at = $1, updated_at = $1 WHERE id = $2 AND (status = 'queued' OR (status = 'running' AND heartbeat_at < $3))`, [Date.now(), id, Date.now() - STALE_MS]),
    );
    if (claimed === 0) return;
    const controller = new AbortController();
    this.running.set(id, controller);
    const row = (await this.rows.findOneBy({ id }))!;
    const state = row.state;
    const options = row.options;
    try {
      state.startedAt ??= Date.now();
      const scope = scopeOf(row.startUrl, options.mode);
      const { robots, note } = await this.robots(new URL(row.startUrl).origin, controller.signal);
      if (note && !state.notes.includes(note)) state.notes.push(note);
      const crawlDelay = robots.getCrawlDelay(USER_AGENT);
      const delayMs = crawlDelay !== undefined && crawlDelay > 0 ? Math.min(MAX_CRAWL_DELAY_MS, crawlDelay * 1000) : this.config.siteImportDelayMs;
      if (crawlDelay) {
        const said = `robots.txt asks for ${crawlDelay} s between requests${crawlDelay * 1000 > MAX_CRAWL_DELAY_MS ? '; 30 s is used' : ''}`;
        if (!state.notes.includes(said)) state.notes.push(said);
      }
      const allowed = (url: string) => robots.isAllowed(url, USER_AGENT) !== false;
      if (!state.seeded) await this.seed(state, row, options, robots);
      await this.saveState(id, state);
      let requested = false;
      let passedOver = 0;
      while (state.frontier.length > 0) {
        if (controller.signal.aborted || (await this.currentStatus(id)) !== 'running') return await this.saveState(id, state);
        const next = state.frontier[0];
        // A page robots.txt disallows is passed over, not fetched, and takes no place of the cap.
        if (!allowed(next.url)) {
          this.passOver(state, next.url);
          state.frontier.shift();
          if (++passedOver % 50 === 0) await this.saveState(id, state);
          continue;
        }
        if (state.handled >= options.maxPages) {
          let rest = 0;
          for (const entry of state.frontier) {
            if (allowed(entry.url)) rest++;
            else this.passOver(state, entry.url);
          }
          state.notes.push(`Stopped at the page cap (${options.maxPages.toLocaleString('en-US')} pages); ${rest.toLocaleString('en-US')} more found were not imported`);
          state.frontier = [];
          break;
        }
        if (requested && delayMs > 0) await sleep(delayMs, undefined, { signal: controller.signal }).catch(() => undefined);
        if (controller.signal.aborted) return await this.saveState(id, state);
        requested = true;
        const done = await this.page(state, options, scope, next, controller.signal, allowed);
        if (!done) return await this.saveState(id, state);
        state.frontier.shift();
        await this.saveState(id, state);
      }
      state.finishedAt = Date.now();
      await this.saveState(id, state);
      const nextResync = options.resyncHours > 0 ? Date.now() + options.resyncHours * 3_600_000 : null;
      await queuedWrite(this.dataSource, () =>
        changedRows(this.dataSource, `UPDATE site_imports SET status = 'completed', next_resync_at = $1, updated_at = $2 WHERE id = $3 AND status = 'running'`, [nextResync, Date.now(), id]),
      );
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.logger.warn(`Website import ${id} failed: ${message}`);
      state.notes.push(`The import stopped: ${message}`);
      await this.saveState(id, state).catch(() => undefined);
      await this.setStatus(id, 'failed', ['running']).catch(() => undefined);
    } finally {
      this.running.delete(id);
    }
  }

  private passOver(state: CrawlState, url: string): void {
    state.skipped++;
    this.error(state, url, 'robots.txt disallows it');
  }

  /** A re-sync's frontier: the start (a sitemap read anew) and every page imported before. */
  private async seed(state: CrawlState, row: SiteImportRow, options: SiteImportOptions, robots: Robots): Promise<void> {
    if (options.mode === 'sitemap') {
      try {
        const response = await safeFetch(row.startUrl, this.fetchOptions({ maxBytes: SITEMAP_MAX_BYTES }));
        if (response.status >= 300) this.error(state, row.startUrl, `The sitemap answered ${response.status}`);
        else {
          const listed = await this.sitemapPages(response.url, response.text(), options.maxPages, robots);
          state.notes.push(...listed.notes);
          this.queueListed(state, listed);
        }
      } catch (error) {
        this.error(state, row.startUrl, `The sitemap ${error instanceof SitemapError ? error.message : `could not be read: ${error instanceof Error ? error.message : String(error)}`}`);
      }
    } else {
      this.queue(state, row.startUrl, 0);
    }
    // Pages imported before are asked for again (not followed further: the start finds new links).
    for (const url of Object.keys(state.pages)) this.queue(state, url, options.maxDepth);
    state.seeded = true;
  }

  /** Handles one page; false when the run was stopped meanwhile. */
  private async page(state: CrawlState, options: SiteImportOptions, scope: string, next: { url: string; depth: number }, signal: AbortSignal, allowed: (url: string) => boolean): Promise<boolean> {
    const { url, depth } = next;
    const known = state.pages[url];
    const headers: Record<string, string> = {};
    if (known?.etag) headers['if-none-match'] = known.etag;
    if (known?.lastModified) headers['if-modified-since'] = known.lastModified;
    let response: SafeResponse;
    try {
      response = await safeFetch(url, this.fetchOptions({ headers, signal }));
    } catch (error) {
      if (signal.aborted) return false;
      state.handled++;
      this.error(state, url, error instanceof Error ? error.message : String(error));
      return true;
    }
    state.handled++;
    if (response.status === 304 && known) {
      state.unchanged++;
      return true;
    }
    if (response.status === 404 || response.status === 410) {
      if (known) await this.removePage(state, url, known);
      else this.error(state, url, `answered ${response.status}`);
      return true;
    }
    if (response.status >= 300) {
      this.error(state, url, `answered ${response.status}`);
      return true;
    }
    const finalUrl = pageKey(response.url) ?? url;
    if (finalUrl !== url) {
      if (!inScope(finalUrl, scope)) {
        this.error(state, url, `redirects off the imported site, to ${finalUrl}`);
        if (known) await this.removePage(state, url, known);
        return true;
      }
      // The page it redirects to is handled under its own address, once.
      if (state.queued.includes(finalUrl) && state.pages[finalUrl] && !known) return true;
      if (!state.queued.includes(finalUrl)) state.queued.push(finalUrl);
    }
    const contentType = header(response, 'content-type');
    let title: string;
    let markdown: string;
    if (isHtml(contentType)) {
      const html = decodeText(response.body, true);
      const content = mainContent(html, finalUrl);
      const { links, heading } = pageLinks(html, finalUrl);
      ({ title, markdown } = pageTitle(content.title, content.markdown, heading));
      if (depth < options.maxDepth) {
        for (const link of links) if (inScope(link, scope) && !link.endsWith('/robots.txt')) this.queue(state, link, depth + 1, !allowed(link));
      }
    } else if (/application\/pdf/i.test(contentType ?? '')) {
      const name = decodeURIComponent(new URL(finalUrl).pathname.split('/').pop() || 'document.pdf');
      try {
        markdown = await pdfToText(name, response.body);
      } catch (error) {
        this.error(state, url, error instanceof Error ? error.message : String(error));
        return true;
      }
      title = name.replace(/\.pdf$/i, '');
    } else {
      state.skipped++;
      state.handled--;
      this.error(state, url, `not an HTML page (${(contentType ?? 'no type').split(';')[0]})`);
      return true;
    }
    if (markdown.replace(/[#>*_`|\-\s]/g, '') === '') {
      this.error(state, url, 'holds no readable text');
      return true;
    }
    title = (title || new URL(finalUrl).pathname).replace(/\s+/g, ' ').trim().slice(0, 200);
    const hash = createHash('sha256').update(`${title}\n${markdown}`).digest('hex');
    const record = state.pages[finalUrl] ?? known;
    const validators = { etag: header(response, 'etag'), lastModified: header(response, 'last-modified') };
    if (record && record.hash === hash) {
      state.unchanged++;
      state.pages[finalUrl] = { ...record, ...validators };
      if (finalUrl !== url && known) delete state.pages[url];
      return true;
    }
    const parsed = KnowledgeItemInputSchema.safeParse({
      title,
      content: markdown,
      category: options.category,
      vertical: options.vertical,
      tags: ['website', new URL(finalUrl).hostname],
      attachments: [],
      url: finalUrl,
    });
    if (!parsed.success) {
      this.error(state, url, firstProblem(parsed.error).message);
      return true;
    }
    let itemId: string | undefined;
    if (record) {
      try {
        itemId = (await this.knowledge.update(record.itemId, parsed.data)).id;
        state.updated++;
        this.adminEvents.emit('knowledge:changed', { id: itemId, action: 'updated' });
      } catch (error) {
        // The item was deleted in the console meanwhile: the page is imported anew.
        if (!(error instanceof AppError && error.code === 'not_found')) throw error;
      }
    }
    if (!itemId) {
      itemId = (await this.knowledge.create(parsed.data)).id;
      state.added++;
      this.adminEvents.emit('knowledge:changed', { id: itemId, action: 'created' });
    }
    state.pages[finalUrl] = { itemId, title, hash, ...validators } satisfies PageRecord;
    if (finalUrl !== url) delete state.pages[url];
    return true;
  }

  private async removePage(state: CrawlState, url: string, record: PageRecord): Promise<void> {
    try {
      await this.knowledge.remove(record.itemId);
      this.adminEvents.emit('knowledge:changed', { id: record.itemId, action: 'deleted' });
    } catch (error) {
      if (!(error instanceof AppError && error.code === 'not_found')) throw error;
    }
    delete state.pages[url];
    state.removed++;
  }
}
