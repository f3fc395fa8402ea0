/**
 * The knowledge API: items and their supporting documents as
 * the admin console sends them, checked by the same schema in the editor and on the server, and
 * the items the API returns (times as ISO strings: createdAt, updatedAt,
 * uploadedAt).
 *
 * Supporting documents: .txt, .json, .md, .png, .jpg, .jpeg, and documents converted to Markdown
 * (.docx, .xlsx, .csv, .html, .htm, .pdf: the client converts them with POST
 * /api/knowledge/import/file?preview=true and sends the Markdown as the content), at most 10 MB each
 * (decoded size); images arrive as base64 data URLs, text files as text. A wrong type is 415, too
 * large is 413, anything else malformed is 400.
 */
import { z } from 'zod';
import { findSubRegion, getJurisdiction, JURISDICTIONS } from '../catalog/jurisdictions';
import { ENABLED_VERTICAL_IDS, getVertical, type EnabledVerticalId } from '../catalog/verticals';
import { tupleOf } from './chat';
import { body, coded, text, timestamp, withArticle } from './rules';

export const KNOWLEDGE_LIMITS = Object.freeze({
  titleChars: 200,
  categoryChars: 100,
  /** UTF-8 bytes of the content (1 MB). */
  contentBytes: 1024 * 1024,
  tagChars: 50,
  tags: 20,
  attachments: 20,
  attachmentBytes: 10 * 1024 * 1024,
  attachmentNameChars: 255,
});

/** The supporting documents accepted, by extension: canonical type, kind, other types browsers report. */
export const ATTACHMENT_TYPES: Readonly<Record<string, { type: string; kind: 'text' | 'image'; aliases: readonly string[]; converted?: true }>> = Object.freeze({
  '.txt': { type: 'text/plain', kind: 'text', aliases: [] },
  '.json': { type: 'application/json', kind: 'text', aliases: ['text/json'] },
  '.md': { type: 'text/markdown', kind: 'text', aliases: ['text/x-markdown', 'text/plain'] },
  '.markdown': { type: 'text/markdown', kind: 'text', aliases: ['text/x-markdown', 'text/plain'] },
  // Stored as the Markdown they convert to (the content sent is that Markdown).
  '.docx': { type: 'text/markdown', kind: 'text', aliases: ['application/vnd.openxmlformats-officedocument.wordprocessingml.document'], converted: true },
  '.xlsx': { type: 'text/markdown', kind: 'text', aliases: ['application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'], converted: true },
  '.csv': { type: 'text/markdown', kind: 'text', aliases: ['text/csv'], converted: true },
  '.html': { type: 'text/markdown', kind: 'text', aliases: ['text/html'], converted: true },
  '.htm': { type: 'text/markdown', kind: 'text', aliases: ['text/html'], converted: true },
  '.pdf': { type: 'text/markdown', kind: 'text', aliases: ['application/pdf'], converted: true },
  '.png': { type: 'image/png', kind: 'image', aliases: [] },
  '.jpg': { type: 'image/jpeg', kind: 'image', aliases: ['image/jpg', 'image/pjpeg'] },
  '.jpeg': { type: 'image/jpeg', kind: 'image', aliases: ['image/jpg', 'image/pjpeg'] },
});
/** Types the editor names as "not yet supported" (refused with 415). */
export const NOT_YET_SUPPORTED_ATTACHMENTS = Object.freeze(['.doc', '.xls']);

/** ".PDF" -> ".pdf"; "" when the name has no extension. */
export function extensionOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot <= 0 ? '' : name.slice(dot).toLowerCase();
}

/** UTF-8 size of a string without encoding it (surrogate pairs count 4, lone surrogates 3). */
export function utf8Bytes(value: string): number {
  let bytes = value.length;
  for (let i = 0; i < value.length; i += 1) {
    const c = value.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) bytes += 1;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < value.length && (value.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 2;
      i += 1;
    } else bytes += 2;
  }
  return bytes;
}

const SIGNATURES: Record<string, number[]> = { 'image/png': [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'image/jpeg': [0xff, 0xd8, 0xff] };

function startsWithSignature(base64: string, type: string): boolean {
  const signature = SIGNATURES[type];
  if (!signature) return true;
  const head = atob(base64.slice(0, 16));
  return signature.every((byte, i) => head.charCodeAt(i) === byte);
}

const TOO_LARGE = (name: string) => `"${name}" is larger than 10 MB`;
const CONTENT_TOO_LARGE = coded('payload_too_large', 'Content must be at most 1 MB');
const FILE_TOO_LARGE = coded('payload_too_large', 'The file is larger than 10 MB, the most an attachment can be');

/** One supporting document as sent. New ones carry content; a kept one its id (content optional). */
export const AttachmentInputSchema = z
  .object(
    {
      id: z.string({ error: 'An attachment id must be text' }).max(36, 'An attachment id is at most 36 characters').optional(),
      name: text('The file name', KNOWLEDGE_LIMITS.attachmentNameChars, { required: 'Each attachment needs a file name' })
        // eslint-disable-next-line no-control-regex
        .overwrite((name) => name.replace(/[\\/\u0000-\u001f]/g, '_')),
      type: z.string({ error: 'The file type must be a MIME type such as text/plain' }).max(200, 'The file type is too long').nullish(),
      /**
       * Bytes; computed by the server from the content, so a sent value is only checked: a file
       * declared larger than the limit is refused as too large (413), like its content would be.
       */
      size: z
        .number({ error: 'The file size must be a number' })
        .int('The file size must be a whole number of bytes')
        .min(0, 'The file size must be a whole number of bytes')
        .max(KNOWLEDGE_LIMITS.attachmentBytes, FILE_TOO_LARGE)
        .optional(),
      /** Text for .txt / .json, a base64 data URL for images; omit to keep a stored attachment. */
      content: z.string({ error: 'The attachment content must be text or a data URL' }).nullish(),
      uploadedAt: timestamp('The upload time').optional(),
    },
    { error: 'Each attachment must be an object' },
  )
  .transform((input, ctx) => {
    const fail = (code: 'validation_failed' | 'payload_too_large' | 'unsupported_media_type', message: string) => {
      ctx.addIssue({ code: 'custom', message, params: { code }, input });
      return z.NEVER;
    };
    const { name } = input;
    const ext = extensionOf(name);
    const accepted = ATTACHMENT_TYPES[ext];
    if (!accepted) {
      const hint = NOT_YET_SUPPORTED_ATTACHMENTS.includes(ext) ? ' (legacy .doc and .xls attachments are not yet supported: save them as .docx or .xlsx)' : '';
      return fail('unsupported_media_type', `"${name}" is not an accepted attachment type: use .txt, .json, .md, .docx, .xlsx, .csv, .html, .pdf, .png, .jpg or .jpeg${hint}`);
    }
    if (input.type) {
      const declared = input.type.toLowerCase().split(';')[0].trim();
      if (declared !== accepted.type && !accepted.aliases.includes(declared)) {
        return fail('unsupported_media_type', `"${name}" is declared as ${input.type.slice(0, 60)}, which does not match its ${ext} extension`);
      }
    }
    const base = { id: input.id, name, type: accepted.type, kind: accepted.kind, uploadedAt: input.uploadedAt };
    if (input.content === undefined || input.content === null) {
      if (!input.id) return fail('validation_failed', `"${name}" has no content`);
      return { ...base, size: 0, content: undefined };
    }
    if (accepted.kind === 'text') {
      // At least one byte per UTF-16 unit: a text this long is too large without counting its bytes.
      if (input.content.length > KNOWLEDGE_LIMITS.attachmentBytes) return fail('payload_too_large', TOO_LARGE(name));
      if (input.content.includes('\u0000')) return fail('validation_failed', `"${name}" contains a character that cannot be stored (U+0000, NUL)`);
      const size = utf8Bytes(input.content);
      if (size > KNOWLEDGE_LIMITS.attachmentBytes) return fail('payload_too_large', TOO_LARGE(name));
      return { ...base, size, content: input.content };
    }
    const comma = input.content.indexOf(',');
    const header = comma > 0 ? input.content.slice(0, Math.min(comma, 200)) : '';
    const match = /^data:([a-z0-9.+/-]+)(?:;[a-z0-9=.+-]+)*;base64$/i.exec(header);
    if (!match) return fail('validation_failed', `"${name}" must be sent as a base64 data URL`);
    const dataType = match[1].toLowerCase();
    if (dataType !== accepted.type && !accepted.aliases.includes(dataType)) {
      return fail('unsupported_media_type', `"${name}" contains ${dataType}, which does not match its ${ext} extension`);
    }
    const payload = input.content.slice(comma + 1).replace(/\s+/g, '');
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(payload) || payload.length % 4 === 1) return fail('validation_failed', `"${name}" is not valid base64`);
    const padding = payload.endsWith('==') ? 2 : payload.endsWith('=') ? 1 : 0;
    const size = Math.floor((payload.length * 3) / 4) - padding;
    if (size > KNOWLEDGE_LIMITS.attachmentBytes) return fail('payload_too_large', TOO_LARGE(name));
    if (!startsWithSignature(payload, accepted.type)) return fail('unsupported_media_type', `"${name}" is not a ${ext.slice(1).toUpperCase()} image`);
    return { ...base, size, content: `data:${accepted.type};base64,${payload}` };
  })
  .meta({ id: 'AttachmentInput' });
export type AttachmentInput = z.input<typeof AttachmentInputSchema>;
/** A checked attachment: canonical type, computed size; no content = keep the stored file `id`. */
export type CheckedAttachment = z.output<typeof AttachmentInputSchema>;

const KNOWLEDGE_VERTICALS = ENABLED_VERTICAL_IDS.join(', ');

function isHttpUrl(value: string): boolean {
  try {
    const parsed = new URL(value);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:';
  } catch {
    return false;
  }
}
const JURISDICTION_CODES = JURISDICTIONS.map((j) => j.code).join(', ');
const JURISDICTION_CHOICES = `Jurisdiction must be one of ${JURISDICTION_CODES}`;

/** POST /api/knowledge and PUT /api/knowledge/{id} (the whole item). Unknown fields are ignored. */
export const KnowledgeItemInputSchema = body(
  {
    title: text('Title', KNOWLEDGE_LIMITS.titleChars, { required: true }).overwrite((t) => t.replace(/\s+/g, ' ')),
    /**
     * At most 1 MB of UTF-8. Every character is at least one byte, so the document states it as
     * that many characters (maxLength), and the byte count is checked after.
     */
    content: z
      .string({ error: 'Content must be text' })
      .max(KNOWLEDGE_LIMITS.contentBytes, CONTENT_TOO_LARGE)
      .refine((c) => !c.includes('\u0000'), 'Content contains a character that cannot be stored (U+0000, NUL)')
      .refine((c) => utf8Bytes(c) <= KNOWLEDGE_LIMITS.contentBytes, CONTENT_TOO_LARGE)
      .default(''),
    category: text('Category', KNOWLEDGE_LIMITS.categoryChars).default(''),
    vertical: z.enum(tupleOf<EnabledVerticalId>(ENABLED_VERTICAL_IDS), {
      error: (issue) => (issue.input === undefined ? 'Vertical is required' : `Vertical must be one of ${KNOWLEDGE_VERTICALS}`),
    }),
    /** At most 20 as sent (what the document states); empty ones and repeats (any case) are then dropped. */
    tags: z
      .array(text('Each tag', KNOWLEDGE_LIMITS.tagChars), { error: 'Tags must be a list of text values' })
      .max(KNOWLEDGE_LIMITS.tags, `At most ${KNOWLEDGE_LIMITS.tags} tags are allowed`)
      .transform((tags) => {
        const seen = new Set<string>();
        return tags.filter((tag) => tag !== '' && !seen.has(tag.toLowerCase()) && seen.add(tag.toLowerCase()));
      })
      .default([]),
    attachments: z
      .array(AttachmentInputSchema, { error: 'Attachments must be a list' })
      .max(KNOWLEDGE_LIMITS.attachments, `At most ${KNOWLEDGE_LIMITS.attachments} attachments per item`)
      .default([]),
    /** Legal items only: the jurisdiction whose law the item states (a code such as US); none: general information. */
    jurisdiction: z
      .union([z.null(), z.literal(''), z.string().trim().max(10, JURISDICTION_CHOICES).refine((code) => getJurisdiction(code) !== undefined, JURISDICTION_CHOICES)], { error: JURISDICTION_CHOICES })
      .transform((code) => (code ? getJurisdiction(code)!.code : null))
      .optional(),
    /** Legal items only: the state, region or emirate within the jurisdiction; none: the whole jurisdiction. */
    subRegion: z
      .union([z.null(), text('Sub-region', 100)], { error: 'Sub-region must be text' })
      .transform((name) => name || null)
      .optional(),
    /** Where the item came from (an imported web page): an http or https URL, cited with the item's answers. null or empty: none; absent: unchanged. */
    url: z
      .union([z.null(), z.literal(''), text('URL', 2000).refine(isHttpUrl, 'URL must be an http or https URL')], { error: 'URL must be an http or https URL' })
      .transform((value) => value || null)
      .optional(),
  },
  'Send the knowledge item as a JSON object.',
)
  .transform((input, ctx) => {
    const item = { ...input, jurisdiction: input.jurisdiction ?? null, subRegion: input.subRegion ?? null };
    const fail = (path: 'jurisdiction' | 'subRegion', message: string) => {
      ctx.addIssue({ code: 'custom', message, path: [path], input: item });
      return z.NEVER;
    };
    if (item.jurisdiction === null) {
      return item.subRegion === null ? item : fail('subRegion', `Choose the jurisdiction that "${item.subRegion}" belongs to`);
    }
    if (item.vertical !== 'legal') return fail('jurisdiction', `Only Legal items have a jurisdiction; ${getVertical(item.vertical)?.name ?? item.vertical} items apply everywhere`);
    if (item.subRegion === null) return item;
    const known = getJurisdiction(item.jurisdiction)!;
    const subRegion = findSubRegion(known, item.subRegion);
    if (subRegion) return { ...item, subRegion };
    if (known.subRegions.length === 0) return fail('subRegion', `${known.name} has no sub-regions to choose from`);
    const label = (known.subRegionLabel ?? 'region').toLowerCase();
    return fail('subRegion', `${item.subRegion} is not ${withArticle(label)} of ${known.name}`);
  })
  .meta({ id: 'KnowledgeItemInput' });
export type KnowledgeItemInput = z.input<typeof KnowledgeItemInputSchema>;
export type CheckedKnowledgeItem = z.output<typeof KnowledgeItemInputSchema>;

/** GET /api/knowledge ?vertical&search */
export const KnowledgeListQuerySchema = z
  .object({
    vertical: z
      .enum(['all', '', ...ENABLED_VERTICAL_IDS], {
        error: (issue) => (Array.isArray(issue.input) ? 'Give the vertical only once' : `The vertical filter must be all or one of ${KNOWLEDGE_VERTICALS}`),
      })
      .optional()
      .transform((v) => (v === 'all' || v === '' ? undefined : (v as EnabledVerticalId | undefined))),
    search: z
      .string({ error: 'Give the search text only once' })
      .transform((s) => s.slice(0, 500))
      .optional()
      .transform((s) => (s?.trim() ? s : undefined)),
    /** Legal items of this jurisdiction (a code), or `none` for those without one (general information). */
    jurisdiction: z
      .string({ error: 'Give the jurisdiction only once' })
      .optional()
      .refine((code) => !code || code.toLowerCase() === 'none' || getJurisdiction(code) !== undefined, `The jurisdiction filter must be none or one of ${JURISDICTION_CODES}`)
      .transform((code) => (!code ? undefined : code.toLowerCase() === 'none' ? ('none' as const) : getJurisdiction(code)!.code)),
    /** With `jurisdiction`: only its items of this sub-region. */
    subRegion: z
      .string({ error: 'Give the sub-region only once' })
      .max(100, 'The sub-region filter must be at most 100 characters')
      .optional()
      .transform((name) => name?.trim() || undefined),
  })
  .meta({ id: 'KnowledgeListQuery' });

/** An attachment as returned; `content` is left out of list results. */
export const KnowledgeAttachmentSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    /** MIME type. */
    type: z.string(),
    /** Bytes. */
    size: z.number().int(),
    /** A data URL for images, the text otherwise; absent in list results. */
    content: z.string().optional(),
    uploadedAt: z.string(),
  })
  .meta({ id: 'KnowledgeAttachment' });
export type KnowledgeAttachment = z.infer<typeof KnowledgeAttachmentSchema>;

export const KnowledgeItemSchema = z
  .object({
    id: z.string(),
    title: z.string(),
    content: z.string(),
    category: z.string(),
    vertical: z.string(),
    tags: z.array(z.string()),
    attachments: z.array(KnowledgeAttachmentSchema),
    /** Legal items: the jurisdiction code whose law it states, or null (general information). */
    jurisdiction: z.string().nullable(),
    /** Legal items: the sub-region within the jurisdiction, or null (the whole jurisdiction). */
    subRegion: z.string().nullable(),
    /** The web page the item was imported from, or null. */
    url: z.string().nullable().optional(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'KnowledgeItem' });
export type KnowledgeItem = z.infer<typeof KnowledgeItemSchema>;

/**
 * GET /api/public/knowledge/{id} `data`: a knowledge item as a visitor may read it, to open a
 * reply's source (the text replies already quote; no attachments, tags or other admin fields).
 */
export const PublicKnowledgeItemSchema = z
  .object({
    id: z.string(),
    title: z.string(),
    content: z.string(),
    vertical: z.string(),
    /** Legal items: the jurisdiction code whose law it states, or null (general information). */
    jurisdiction: z.string().nullable(),
    subRegion: z.string().nullable(),
    /** The web page the item was imported from, or null. */
    url: z.string().nullable().optional(),
    updatedAt: z.string(),
  })
  .meta({ id: 'PublicKnowledgeItem' });
export type PublicKnowledgeItem = z.infer<typeof PublicKnowledgeItemSchema>;

export const DeletedSchema = z.object({ id: z.string() }).meta({ id: 'Deleted' });
