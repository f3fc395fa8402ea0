/**
 * The source URLs of the items that have one (imported web pages), by item id. All of them are
 * kept in memory (only imported pages have one), read with the first search and again, off the
 * request path, once the map is older than URL_CACHE_MS: a warm retrieval reads nothing. This
 * server's own writes change the map at once; another server's within that time.
 */
import { IsNull, Not, type Repository } from 'typeorm';
import type { KnowledgeItem } from './knowledge-item.entity';

/** How old the map of source URLs may get before it is read again (off the request path). */
const URL_CACHE_MS = 60_000;

export class SourceUrls {
  private urls: { byItem: Map<string, string>; at: number } | undefined;
  private urlsLoading: Promise<void> | undefined;

  constructor(private readonly items: Repository<KnowledgeItem>) {}

  /** Whether the map has been read once. */
  get loaded(): boolean {
    return this.urls !== undefined;
  }

  /** The URLs of these items that have one. */
  async of(ids: string[]): Promise<Map<string, string>> {
    if (!this.urls) await this.load();
    else if (Date.now() - this.urls.at > URL_CACHE_MS) void this.load().catch(() => undefined);
    const found = new Map<string, string>();
    for (const id of ids) {
      const url = this.urls?.byItem.get(id);
      if (url) found.set(id, url);
    }
    return found;
  }

  load(): Promise<void> {
    this.urlsLoading ??= (async () => {
      const rows = await this.items.find({ select: { id: true, sourceUrl: true }, where: { sourceUrl: Not(IsNull()) } });
      this.urls = { byItem: new Map(rows.map((row) => [row.id, row.sourceUrl!])), at: Date.now() };
    })().finally(() => {
      this.urlsLoading = undefined;
    });
    return this.urlsLoading;
  }

  /** This server's write of an item: its URL (or none) is known at once. */
  remember(id: string, url: string | null | undefined): void {
    if (!this.urls) return;
    if (url) this.urls.byItem.set(id, url);
    else this.urls.byItem.delete(id);
  }
}
