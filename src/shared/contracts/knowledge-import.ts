/**
 * Importing knowledge from files and websites (POST /api/knowledge/import/...). Files are
 * converted on the server to Markdown; see src/ingestion.
 */
import { z } from 'zod';
import { ENABLED_VERTICAL_IDS, type EnabledVerticalId } from '../catalog/verticals';
import { tupleOf } from './chat';
import { body, integer, text } from './rules';

export const IMPORT_LIMITS = Object.freeze({
  /** Bytes of one uploaded file. */
  fileBytes: 20 * 1024 * 1024,
});

/** File extensions the importer converts (Quick Upload's picker and the API). */
export const IMPORT_EXTENSIONS = Object.freeze(['.txt', '.json', '.pdf', '.docx', '.md', '.markdown', '.html', '.htm', '.csv', '.xlsx']);
/** Said wherever the formats are listed. */
export const IMPORT_FORMATS_LABEL = 'TXT, JSON, PDF, DOCX, Markdown, HTML, CSV, XLSX';

const KNOWLEDGE_VERTICALS = ENABLED_VERTICAL_IDS.join(', ');
const flag = (name: string) =>
  z
    .enum(['true', 'false', '1', '0', ''], { error: `${name} must be true or false` })
    .optional()
    .transform((v) => v === 'true' || v === '1');

/** POST /api/knowledge/import/file ?vertical&category&tags&preview; the file is the multipart field `file`. */
export const ImportFileQuerySchema = z
  .object({
    vertical: z
      .enum(tupleOf<EnabledVerticalId>(ENABLED_VERTICAL_IDS), {
        error: (issue) => (issue.input === undefined ? 'Vertical is required' : `Vertical must be one of ${KNOWLEDGE_VERTICALS}`),
      })
      .meta({ description: 'The vertical the new items belong to.' }),
    category: text('Category', 100).default('Uploaded').meta({ description: "The items' category (default Uploaded)." }),
    tags: z
      .string({ error: 'Give the tags only once' })
      .max(1100, 'Tags are too long')
      .optional()
      .transform((t) => (t === undefined ? undefined : t.split(',').map((tag) => tag.trim()).filter(Boolean).slice(0, 20)))
      .meta({ description: 'Comma-separated tags; default `uploaded,document` and the format.' }),
    preview: flag('preview').meta({ description: 'true: convert and return the items without storing them (the review step).' }),
  })
  .meta({ id: 'ImportFileQuery' });
export type ImportFileQuery = z.output<typeof ImportFileQuerySchema>;

/** One item a file became: stored (with its id) or, in a preview, only converted. */
export const ImportedItemSchema = z
  .object({
    /** Absent in a preview. */
    id: z.string().optional(),
    title: z.string(),
    /** Markdown. */
    content: z.string(),
    category: z.string(),
    vertical: z.string(),
    tags: z.array(z.string()),
  })
  .meta({ id: 'ImportedItem' });

export const ImportedFileSchema = z
  .object({
    fileName: z.string(),
    /** What the file was read as: docx, markdown, html, csv, xlsx, text, json or pdf. */
    format: z.string(),
    /** false for a preview: nothing was stored. */
    stored: z.boolean(),
    items: z.array(ImportedItemSchema),
    /** Milliseconds the conversion took. */
    convertMs: z.number(),
  })
  .meta({ id: 'ImportedFile' });
export type ImportedFile = z.infer<typeof ImportedFileSchema>;
export type ImportedItem = z.infer<typeof ImportedItemSchema>;

// --- website import -----------------------------------------------------------------------------

export const SITE_IMPORT_LIMITS = Object.freeze({
  defaultPages: 200,
  maxPages: 2000,
  defaultDepth: 3,
  maxDepth: 10,
  /** Hours between scheduled re-syncs by default (daily); 0 turns the schedule off. */
  defaultResyncHours: 24,
  maxResyncHours: 24 * 30,
});

const isHttpUrl = (value: string) => {
  try {
    const parsed = new URL(value);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:';
  } catch {
    return false;
  }
};

/** POST /api/knowledge/import/site */
export const SiteImportRequestSchema = body({
  url: text('URL', 2000, { required: 'Enter the address of a page or a sitemap' })
    .refine(isHttpUrl, 'URL must be an http or https address')
    .meta({ description: 'A start page (the crawl stays on its host and under its folder) or a sitemap (or sitemap index) URL.' }),
  vertical: z
    .enum(tupleOf<EnabledVerticalId>(ENABLED_VERTICAL_IDS), {
      error: (issue) => (issue.input === undefined ? 'Vertical is required' : `Vertical must be one of ${KNOWLEDGE_VERTICALS}`),
    })
    .meta({ description: 'The vertical the pages belong to.' }),
  category: text('Category', 100).default('Website'),
  maxPages: integer('Page cap', 1, SITE_IMPORT_LIMITS.maxPages).default(SITE_IMPORT_LIMITS.defaultPages).meta({ description: 'Pages imported at most (default 200, at most 2,000).' }),
  maxDepth: integer('Depth', 0, SITE_IMPORT_LIMITS.maxDepth).default(SITE_IMPORT_LIMITS.defaultDepth).meta({ description: 'Links followed from the start page at most (0: the start page or the sitemap\'s pages only).' }),
  resyncHours: integer('Re-sync interval', 0, SITE_IMPORT_LIMITS.maxResyncHours)
    .default(SITE_IMPORT_LIMITS.defaultResyncHours)
    .meta({ description: 'Hours between scheduled re-syncs (default 24; 0: only on demand).' }),
}).meta({ id: 'SiteImportRequest' });
export type SiteImportRequest = z.input<typeof SiteImportRequestSchema>;
export type CheckedSiteImportRequest = z.output<typeof SiteImportRequestSchema>;

export const SITE_IMPORT_STATUSES = ['queued', 'running', 'completed', 'cancelled', 'failed'] as const;
export type SiteImportStatus = (typeof SITE_IMPORT_STATUSES)[number];

/** A website import (and its latest run: the first import or a re-sync). */
export const SiteImportSchema = z
  .object({
    id: z.string(),
    status: z.enum(SITE_IMPORT_STATUSES),
    /** What the latest run is: the first import or a re-sync. */
    run: z.enum(['import', 'resync']),
    url: z.string(),
    /** `sitemap` when the URL is a sitemap or sitemap index, `page` for a start page. */
    mode: z.enum(['page', 'sitemap']),
    vertical: z.string(),
    category: z.string(),
    maxPages: z.number().int(),
    maxDepth: z.number().int(),
    resyncHours: z.number().int(),
    /** Pages handled in this run. */
    pagesDone: z.number().int(),
    /** Pages known to handle in this run (grows while links are found; at most the cap). */
    pagesTotal: z.number().int(),
    /** Items this run added, updated, removed, or found unchanged. */
    added: z.number().int(),
    updated: z.number().int(),
    removed: z.number().int(),
    unchanged: z.number().int(),
    /** Pages passed over (robots.txt, not HTML, off the site), with the reason in `errors`. */
    skipped: z.number().int(),
    /** Items this import keeps (one per page). */
    items: z.number().int(),
    /** Pages that failed or were passed over, with the reason (the latest 100). */
    errors: z.array(z.object({ url: z.string(), message: z.string() })),
    /** Things worth saying about the run (a capped sitemap, the crawl delay obeyed). */
    notes: z.array(z.string()),
    createdAt: z.string(),
    startedAt: z.string().nullable(),
    finishedAt: z.string().nullable(),
    /** When the next scheduled re-sync runs (null: none scheduled). */
    nextResyncAt: z.string().nullable(),
  })
  .meta({ id: 'SiteImport' });
export type SiteImport = z.infer<typeof SiteImportSchema>;
