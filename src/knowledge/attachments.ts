/**
 * Supporting documents: which files are accepted and how they are checked. The rules follow the
 * product spec: .txt, .json, .png, .jpg, .jpeg, at most 10 MB each (decoded size); images arrive
 * as data URLs, text files as text. A wrong type is 415, too large is 413, malformed is 400.
 */
import { KnowledgeError } from './knowledge.errors';

export const MAX_ATTACHMENT_BYTES = 10 * 1024 * 1024;
export const MAX_ATTACHMENTS_PER_ITEM = 20;
const MAX_NAME_CHARS = 255;

type Kind = 'text' | 'image';

/** Accepted extensions, their canonical MIME type, and other MIME types browsers report for them. */
const ACCEPTED: Record<string, { type: string; kind: Kind; aliases: string[] }> = {
  '.txt': { type: 'text/plain', kind: 'text', aliases: [] },
  '.json': { type: 'application/json', kind: 'text', aliases: ['text/json'] },
  '.png': { type: 'image/png', kind: 'image', aliases: [] },
  '.jpg': { type: 'image/jpeg', kind: 'image', aliases: ['image/jpg', 'image/pjpeg'] },
  '.jpeg': { type: 'image/jpeg', kind: 'image', aliases: ['image/jpg', 'image/pjpeg'] },
};

const NOT_YET_SUPPORTED = ['.pdf', '.doc', '.docx', '.xls', '.xlsx'];

/** What the API accepts for one attachment. `content` may be omitted to keep a stored attachment. */
export interface AttachmentInput {
  id?: string;
  name: string;
  type?: string;
  size?: number;
  content?: string;
  uploadedAt?: string | number;
}

export interface CheckedAttachment {
  id?: string;
  name: string;
  type: string;
  size: number;
  /** undefined: keep the stored content of attachment `id`. */
  content?: string;
  kind: Kind;
  uploadedAt?: number;
}

function extensionOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot < 0 ? '' : name.slice(dot).toLowerCase();
}

function hasSignature(bytes: Buffer, type: string): boolean {
  if (type === 'image/png') return bytes.length >= 8 && bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  if (type === 'image/jpeg') return bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff;
  return true;
}

/** Decoded size of a base64 payload without decoding it. */
function base64Bytes(payload: string): number {
  const padding = payload.endsWith('==') ? 2 : payload.endsWith('=') ? 1 : 0;
  return Math.floor((payload.length * 3) / 4) - padding;
}

export function checkAttachment(raw: unknown, index: number): CheckedAttachment {
  const field = `attachments[${index}]`;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw KnowledgeError.invalid(field, `${field} must be an object`);
  const input = raw as Record<string, unknown>;
  if (typeof input.name !== 'string' || input.name.trim() === '') throw KnowledgeError.invalid(`${field}.name`, `${field}.name is required`);
  const name = input.name.trim().replace(/[\\/\u0000-\u001f]/g, '_');
  if (name.length > MAX_NAME_CHARS) throw KnowledgeError.invalid(`${field}.name`, `${field}.name must be at most ${MAX_NAME_CHARS} characters`);
  if (input.id !== undefined && (typeof input.id !== 'string' || input.id.length > 36)) throw KnowledgeError.invalid(`${field}.id`, `${field}.id must be a string id`);

  const ext = extensionOf(name);
  const accepted = ACCEPTED[ext];
  if (!accepted) {
    const hint = NOT_YET_SUPPORTED.includes(ext) ? ' (PDF, DOC, DOCX and Excel attachments are not yet supported)' : '';
    throw KnowledgeError.unsupportedType(`${field}.name`, `"${name}" is not an accepted attachment type: use .txt, .json, .png, .jpg or .jpeg${hint}`);
  }
  if (input.type !== undefined && input.type !== null && input.type !== '') {
    if (typeof input.type !== 'string') throw KnowledgeError.invalid(`${field}.type`, `${field}.type must be a MIME type`);
    const type = input.type.toLowerCase().split(';')[0].trim();
    if (type !== accepted.type && !accepted.aliases.includes(type)) {
      throw KnowledgeError.unsupportedType(`${field}.type`, `"${name}" is declared as ${input.type.slice(0, 60)}, which does not match its ${ext} extension`);
    }
  }
  const uploadedAt = input.uploadedAt === undefined ? undefined : typeof input.uploadedAt === 'number' ? input.uploadedAt : Date.parse(String(input.uploadedAt));
  const base = { id: input.id as string | undefined, name, type: accepted.type, kind: accepted.kind, uploadedAt: Number.isFinite(uploadedAt) ? uploadedAt : undefined };

  if (input.content === undefined || input.content === null) {
    if (!base.id) throw KnowledgeError.invalid(`${field}.content`, `${field}.content is required for a new attachment`);
    return { ...base, size: 0 };
  }
  if (typeof input.content !== 'string') throw KnowledgeError.invalid(`${field}.content`, `${field}.content must be text or a data URL`);

  if (accepted.kind === 'text') {
    const size = Buffer.byteLength(input.content, 'utf8');
    if (size > MAX_ATTACHMENT_BYTES) throw KnowledgeError.tooLarge(`${field}.content`, `"${name}" is larger than 10 MB`);
    return { ...base, size, content: input.content };
  }

  const comma = input.content.indexOf(',');
  const header = comma > 0 ? input.content.slice(0, Math.min(comma, 200)) : '';
  const match = /^data:([a-z0-9.+/-]+)(?:;[a-z0-9=.+-]+)*;base64$/i.exec(header);
  if (!match) throw KnowledgeError.invalid(`${field}.content`, `"${name}" must be sent as a base64 data URL`);
  const dataType = match[1].toLowerCase();
  if (dataType !== accepted.type && !accepted.aliases.includes(dataType)) {
    throw KnowledgeError.unsupportedType(`${field}.content`, `"${name}" contains ${dataType}, which does not match its ${ext} extension`);
  }
  const payload = input.content.slice(comma + 1).replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(payload) || payload.length % 4 === 1) {
    throw KnowledgeError.invalid(`${field}.content`, `"${name}" is not valid base64`);
  }
  const size = base64Bytes(payload);
  if (size > MAX_ATTACHMENT_BYTES) throw KnowledgeError.tooLarge(`${field}.content`, `"${name}" is larger than 10 MB`);
  if (!hasSignature(Buffer.from(payload.slice(0, 16), 'base64'), accepted.type)) {
    throw KnowledgeError.unsupportedType(`${field}.content`, `"${name}" is not a ${ext.slice(1).toUpperCase()} image`);
  }
  return { ...base, size, content: `data:${accepted.type};base64,${payload}` };
}

export function checkAttachments(raw: unknown): CheckedAttachment[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw KnowledgeError.invalid('attachments', 'attachments must be a list');
  if (raw.length > MAX_ATTACHMENTS_PER_ITEM) throw KnowledgeError.invalid('attachments', `At most ${MAX_ATTACHMENTS_PER_ITEM} attachments per item`);
  return raw.map((a, i) => checkAttachment(a, i));
}
