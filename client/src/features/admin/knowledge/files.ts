/**
 * The file rules of the Knowledge Base tab, and the
 * FileReader wrappers the tab reads files with.
 *
 * - Supporting documents (the editor): .txt, .json, .md, .png, .jpg, .jpeg, and documents the
 *   server converts to Markdown (.docx, .xlsx, .csv, .html, .htm, .pdf), at most 10MB each; legacy
 *   .doc and .xls are "not yet supported". Images are read as data URLs, text as text.
 * - Quick upload: .txt, .json and .pdf are read here; .docx, .md, .html, .csv and .xlsx are
 *   converted by the server; legacy .doc and .xls are refused with their own alert.
 */

import { ATTACHMENT_TYPES, extensionOf, KNOWLEDGE_LIMITS, NOT_YET_SUPPORTED_ATTACHMENTS } from '@shared/contracts/knowledge';
import { IMPORT_EXTENSIONS } from '@shared/contracts/knowledge-import';

export { extensionOf };
export const MAX_ATTACHMENT_BYTES = KNOWLEDGE_LIMITS.attachmentBytes;

/** The file picker's `accept` for supporting documents. */
export const ATTACHMENT_ACCEPT = Object.keys(ATTACHMENT_TYPES).join(',');
/** The file picker's `accept` for quick upload. */
export const QUICK_UPLOAD_ACCEPT = IMPORT_EXTENSIONS.join(',');

/** The file name without its extension: "Leave policy.v2.pdf" -> "Leave policy.v2". */
export function nameWithoutExtension(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot <= 0 ? name : name.slice(0, dot);
}

/** Comma-separated tags: trimmed, empties and repeats (any case) dropped, as the server keeps them. */
export function parseTags(text: string): string[] {
  const seen = new Set<string>();
  return text
    .split(',')
    .map((tag) => tag.trim())
    .filter((tag) => tag !== '' && !seen.has(tag.toLowerCase()) && seen.add(tag.toLowerCase()) !== undefined);
}

export type AttachmentCheck =
  | { ok: true; type: string; image: boolean; /** Converted to Markdown by the server first. */ convert: boolean }
  | { ok: false; reason: 'not-yet-supported' | 'unsupported' | 'too-large' };

/** Whether a file may become a supporting document, and how to read it. */
export function checkAttachmentFile(file: { name: string; size: number }): AttachmentCheck {
  const ext = extensionOf(file.name);
  const accepted = ATTACHMENT_TYPES[ext];
  if (!accepted) return { ok: false, reason: NOT_YET_SUPPORTED_ATTACHMENTS.includes(ext) ? 'not-yet-supported' : 'unsupported' };
  if (file.size > MAX_ATTACHMENT_BYTES) return { ok: false, reason: 'too-large' };
  return { ok: true, type: accepted.type, image: accepted.kind === 'image', convert: accepted.converted === true };
}

export type QuickUploadKind = 'text' | 'pdf' | 'convert' | 'excel' | 'word' | 'unsupported';

/** What quick upload does with a file, by its extension. */
export function quickUploadKind(name: string): QuickUploadKind {
  switch (extensionOf(name)) {
    case '.txt':
    case '.json':
      return 'text';
    case '.pdf':
      return 'pdf';
    case '.docx':
    case '.md':
    case '.markdown':
    case '.html':
    case '.htm':
    case '.csv':
    case '.xlsx':
      return 'convert';
    case '.xls':
      return 'excel';
    case '.doc':
      return 'word';
    default:
      return 'unsupported';
  }
}

function read<T>(file: Blob, start: (reader: FileReader) => void): Promise<T> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(reader.result as T);
    reader.onerror = () => reject(reader.error ?? new Error('The file could not be read'));
    reader.onabort = () => reject(new Error('Reading the file was aborted'));
    start(reader);
  });
}

export const readAsText = (file: Blob) => read<string>(file, (r) => r.readAsText(file));
export const readAsDataUrl = (file: Blob) => read<string>(file, (r) => r.readAsDataURL(file));
export const readAsArrayBuffer = (file: Blob) => read<ArrayBuffer>(file, (r) => r.readAsArrayBuffer(file));
