/**
 * What a quick-uploaded file becomes before the admin reviews it: one knowledge item, or (a JSON
 * array) one per element. Pure functions; the review dialog and useQuickUpload use them.
 *
 * - A title from the file name: extension off, "-" and "_" as spaces, first letter capital
 *   ("return-policy_v2.txt" -> "Return policy v2").
 * - A JSON object's fields become the item's fields (title, content, category, vertical, tags,
 *   jurisdiction, subRegion; a few usual synonyms such as name/question and body/text/answer).
 *   Fields without a place of their own go into the content as "Label: value" lines, so visitors
 *   never read raw JSON.
 */
import type { KnowledgeItemInput } from './api/knowledge-api';
import { nameWithoutExtension } from './files';
import { KNOWLEDGE } from './strings';

export type Vertical = KnowledgeItemInput['vertical'];

export interface DraftDefaults {
  vertical: Vertical;
  category: string;
  tags: string[];
}

export function prettyTitle(fileName: string): string {
  const words = nameWithoutExtension(fileName).replace(/[_-]+/g, ' ').replace(/\s+/g, ' ').trim();
  return words ? words[0].toLocaleUpperCase() + words.slice(1) : fileName;
}

const TITLE_KEYS = ['title', 'name', 'question', 'subject', 'heading'];
const CONTENT_KEYS = ['content', 'body', 'text', 'answer', 'description', 'details'];
const OWN_KEYS = new Set([...TITLE_KEYS, ...CONTENT_KEYS, 'category', 'vertical', 'tags', 'jurisdiction', 'subregion', 'attachments', 'id']);
const VERTICALS = Object.keys(KNOWLEDGE.verticals);

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The first of `keys` (any case) holding non-empty text or a number. */
function pick(record: Record<string, unknown>, keys: string[]): string | undefined {
  for (const [key, value] of Object.entries(record)) {
    if (!keys.includes(key.toLowerCase())) continue;
    if (typeof value === 'string' && value.trim()) return value.trim();
    if (typeof value === 'number') return String(value);
  }
  return undefined;
}

/** "subRegion" -> "Sub region". */
const labelOf = (key: string) => {
  const words = key.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/[_-]+/g, ' ').toLowerCase();
  return words[0].toUpperCase() + words.slice(1);
};

function valueText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return value.map(valueText).filter(Boolean).join(', ');
  if (isRecord(value))
    return Object.entries(value)
      .map(([k, v]) => `${labelOf(k)}: ${valueText(v)}`)
      .join('; ');
  return String(value);
}

function draftOf(value: unknown, index: number, fallbackTitle: string, defaults: DraftDefaults): KnowledgeItemInput {
  if (!isRecord(value)) {
    return { title: index === 0 ? fallbackTitle : `${fallbackTitle} ${index + 1}`, content: valueText(value), category: defaults.category, vertical: defaults.vertical, tags: defaults.tags, attachments: [] };
  }
  const title = pick(value, TITLE_KEYS) ?? (index === 0 ? fallbackTitle : `${fallbackTitle} ${index + 1}`);
  const main = pick(value, CONTENT_KEYS);
  const extra = Object.entries(value)
    .filter(([key, v]) => !OWN_KEYS.has(key.toLowerCase()) && valueText(v) !== '')
    .map(([key, v]) => `${labelOf(key)}: ${valueText(v)}`);
  const content = [main, ...extra].filter(Boolean).join('\n');
  const vertical = pick(value, ['vertical']);
  const rawTags = Object.entries(value).find(([key]) => key.toLowerCase() === 'tags')?.[1];
  const tags = Array.isArray(rawTags) ? rawTags.filter((t): t is string => typeof t === 'string' && t.trim() !== '').map((t) => t.trim()) : typeof rawTags === 'string' ? rawTags.split(',').map((t) => t.trim()).filter(Boolean) : defaults.tags;
  const jurisdiction = pick(value, ['jurisdiction']);
  const subRegion = pick(value, ['subregion']);
  return {
    title,
    content,
    category: pick(value, ['category']) ?? defaults.category,
    vertical: vertical && VERTICALS.includes(vertical) ? (vertical as Vertical) : defaults.vertical,
    tags,
    ...(jurisdiction ? { jurisdiction, ...(subRegion ? { subRegion } : {}) } : {}),
    attachments: [],
  };
}

/** The items a JSON file holds, or why it holds none. */
export function draftsFromJson(text: string, fileName: string, defaults: DraftDefaults): { drafts: KnowledgeItemInput[] } | { problem: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return { problem: `The file is not valid JSON (${error instanceof Error ? error.message : String(error)}).` };
  }
  const title = prettyTitle(fileName);
  const elements = Array.isArray(parsed) ? parsed : [parsed];
  const drafts = elements.map((element, i) => draftOf(element, i, title, defaults)).filter((d) => d.content?.trim() || d.title !== title);
  return drafts.length ? { drafts } : { problem: 'The JSON file holds no items.' };
}

/** A text or PDF file: one item, its text as content. */
export function draftFromText(fileName: string, text: string, defaults: DraftDefaults): KnowledgeItemInput {
  return { title: prettyTitle(fileName), content: text, category: defaults.category, vertical: defaults.vertical, tags: defaults.tags, attachments: [] };
}
