import { describe, expect, it } from 'vitest';
import { formatFileSize } from '../../../lib/format';
import { checkAttachmentFile, extensionOf, MAX_ATTACHMENT_BYTES, nameWithoutExtension, parseTags, quickUploadKind } from './files';

describe('parseTags', () => {
  it('splits on commas, trims each tag and drops the empty ones', () => {
    expect(parseTags(' leave, , parents ,benefits ,')).toEqual(['leave', 'parents', 'benefits']);
    expect(parseTags('')).toEqual([]);
    expect(parseTags(' ,  , ')).toEqual([]);
    expect(parseTags('two words, one')).toEqual(['two words', 'one']);
  });
});

describe('file names', () => {
  it('reads the extension case-insensitively, and the name without it', () => {
    expect(extensionOf('Report.PDF')).toBe('.pdf');
    expect(extensionOf('archive.tar.JSON')).toBe('.json');
    expect(extensionOf('README')).toBe('');
    expect(extensionOf('.bashrc')).toBe('');
    expect(nameWithoutExtension('Leave policy.v2.pdf')).toBe('Leave policy.v2');
    expect(nameWithoutExtension('README')).toBe('README');
  });
});

describe('supporting documents (checkAttachmentFile)', () => {
  it.each([
    ['notes.txt', 'text/plain', false],
    ['data.JSON', 'application/json', false],
    ['photo.png', 'image/png', true],
    ['photo.JPG', 'image/jpeg', true],
    ['photo.jpeg', 'image/jpeg', true],
    ['notes.md', 'text/markdown', false],
  ])('accepts %s as %s (image: %s)', (name, type, image) => {
    expect(checkAttachmentFile({ name, size: 10 })).toEqual({ ok: true, type, image, convert: false });
  });

  it.each(['manual.pdf', 'letter.DOCX', 'sheet.xlsx', 'prices.csv', 'page.html'])('accepts %s, converted to Markdown by the server', (name) => {
    expect(checkAttachmentFile({ name, size: 10 })).toEqual({ ok: true, type: 'text/markdown', image: false, convert: true });
  });

  it.each(['letter.doc', 'sheet.xls'])('notes the legacy %s as not yet supported', (name) => {
    expect(checkAttachmentFile({ name, size: 10 })).toEqual({ ok: false, reason: 'not-yet-supported' });
  });

  it.each(['setup.exe', 'clip.gif', 'README'])('refuses %s as an unsupported type', (name) => {
    expect(checkAttachmentFile({ name, size: 10 })).toEqual({ ok: false, reason: 'unsupported' });
  });

  it('accepts exactly 10MB and refuses one byte more', () => {
    expect(MAX_ATTACHMENT_BYTES).toBe(10 * 1024 * 1024);
    expect(checkAttachmentFile({ name: 'big.txt', size: MAX_ATTACHMENT_BYTES })).toMatchObject({ ok: true });
    expect(checkAttachmentFile({ name: 'big.png', size: MAX_ATTACHMENT_BYTES + 1 })).toEqual({ ok: false, reason: 'too-large' });
  });
});

describe('quick upload (quickUploadKind)', () => {
  it.each([
    ['notes.txt', 'text'],
    ['NOTES.TXT', 'text'],
    ['data.Json', 'text'],
    ['handbook.pdf', 'pdf'],
    ['HANDBOOK.PDF', 'pdf'],
    ['budget.xlsx', 'convert'],
    ['budget.XLS', 'excel'],
    ['letter.docx', 'convert'],
    ['letter.Doc', 'word'],
    ['photo.png', 'unsupported'],
    ['pdf', 'unsupported'],
  ])('%s -> %s', (name, kind) => {
    expect(quickUploadKind(name)).toBe(kind);
  });
});

describe('formatFileSize', () => {
  it('uses Bytes, KB, MB and GB (powers of 1024) with at most 2 decimals', () => {
    expect(formatFileSize(0)).toBe('0 Bytes');
    expect(formatFileSize(51)).toBe('51 Bytes');
    expect(formatFileSize(1023)).toBe('1023 Bytes');
    expect(formatFileSize(1024)).toBe('1 KB');
    expect(formatFileSize(1536)).toBe('1.5 KB');
    expect(formatFileSize(3238)).toBe('3.16 KB');
    expect(formatFileSize(10 * 1024 * 1024)).toBe('10 MB');
    expect(formatFileSize(1234567)).toBe('1.18 MB');
    expect(formatFileSize(5 * 1024 ** 3)).toBe('5 GB');
    expect(formatFileSize(3 * 1024 ** 4)).toBe('3072 GB');
  });

  it('says 1 MB rather than 1024 KB when rounding reaches the next unit', () => {
    expect(formatFileSize(1024 * 1024 - 1)).toBe('1 MB');
  });

  it('shows 0 Bytes for a missing or negative size', () => {
    expect(formatFileSize(Number.NaN)).toBe('0 Bytes');
    expect(formatFileSize(-5)).toBe('0 Bytes');
  });
});
