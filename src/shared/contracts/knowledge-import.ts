/**
 * Importing knowledge from files and websites (POST /api/knowledge/import/...). Files are
 * converted on the server to Markdown; see src/ingestion.
 */
import { z } from 'zod';
import { ENABLED_VERTICAL_IDS, type EnabledVerticalId } from '../catalog/verticals';
import { tupleOf } from './chat';
import { text } from './rules';

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
