/**
 * One uploaded file to the knowledge items it becomes, by its extension: DOCX, Markdown, HTML
 * (main content only), CSV and XLSX (Markdown tables), TXT, JSON and PDF. Everything comes out as
 * Markdown. A file that cannot be converted is a clear 4xx (ImportError) and nothing else happens.
 */
import { ImportError } from '../ingestion.errors';
import { docxToMarkdown } from './docx';
import { htmlToMarkdown, mainContent, tidyMarkdown } from './markdown';
import { pdfToText } from './pdf';
import { csvParts, DEFAULT_SHEET_LIMITS, type SheetLimits, xlsxParts } from './spreadsheet';
import type { ZipLimits } from './zip-guard';

export type ImportFormat = 'docx' | 'markdown' | 'html' | 'csv' | 'xlsx' | 'text' | 'json' | 'pdf';

/** Accepted extensions and their format. */
export const IMPORT_FORMATS: Readonly<Record<string, ImportFormat>> = Object.freeze({
  '.docx': 'docx',
  '.md': 'markdown',
  '.markdown': 'markdown',
  '.html': 'html',
  '.htm': 'html',
  '.csv': 'csv',
  '.xlsx': 'xlsx',
  '.txt': 'text',
  '.json': 'json',
  '.pdf': 'pdf',
});

/** How the supported formats are named to people. */
export const SUPPORTED_FORMATS_TEXT = 'TXT, JSON, PDF, Word (.docx), Markdown, HTML, CSV and Excel (.xlsx)';

/** Older binary Office formats: refused with what to do instead. */
const LEGACY: Record<string, string> = {
  '.doc': 'Word 97-2003 (.doc) files are not yet supported: save the document as .docx',
  '.xls': 'Excel 97-2003 (.xls) files are not yet supported: save the workbook as .xlsx or CSV',
};

export interface ConvertedPart {
  title: string;
  /** Markdown. */
  content: string;
}

export interface ConvertedFile {
  format: ImportFormat;
  /** The items the file becomes (a spreadsheet: one per sheet or row group; otherwise one). */
  parts: ConvertedPart[];
}

export interface ConvertLimits {
  zip?: ZipLimits;
  sheet?: SheetLimits;
}

/** "return-policy_v2.docx" -> "Return policy v2". */
export function titleFromFileName(fileName: string): string {
  const dot = fileName.lastIndexOf('.');
  const words = (dot > 0 ? fileName.slice(0, dot) : fileName).replace(/[_-]+/g, ' ').replace(/\s+/g, ' ').trim();
  return words ? words[0].toLocaleUpperCase() + words.slice(1) : fileName;
}

export function extensionOf(fileName: string): string {
  const dot = fileName.lastIndexOf('.');
  return dot <= 0 ? '' : fileName.slice(dot).toLowerCase();
}

/** The file's text: UTF-8 (BOM dropped), or the charset an HTML page declares. */
export function decodeText(data: Uint8Array, html = false): string {
  let label = 'utf-8';
  if (html) {
    const head = Buffer.from(data.subarray(0, 2048)).toString('latin1');
    const declared = /<meta[^>]+charset\s*=\s*["']?([\w-]+)/i.exec(head)?.[1];
    if (declared) label = declared.toLowerCase();
  }
  try {
    return new TextDecoder(label).decode(data);
  } catch {
    return new TextDecoder('utf-8').decode(data);
  }
}

function notEmpty(fileName: string, text: string): string {
  // Control characters and the replacement character (undecodable bytes) are not readable text.
  if (text.replace(/[#>*_`|\-\s\u0000-\u001f\u007f\ufffd]/g, '') === '') throw ImportError.invalid(`"${fileName}" holds no readable text`);
  return text;
}

/** Formats read as text: a NUL byte near the start says the file is binary (an image or archive renamed), not text. */
const TEXT_FORMATS: ReadonlySet<ImportFormat> = new Set(['markdown', 'html', 'csv', 'text', 'json']);

function notBinary(fileName: string, format: ImportFormat, data: Uint8Array): void {
  if (TEXT_FORMATS.has(format) && data.subarray(0, 8192).includes(0)) throw ImportError.invalid(`"${fileName}" holds binary data, not ${format === 'text' ? 'plain' : format.toUpperCase().replace('MARKDOWN', 'Markdown')} text`);
}

/** Converts `data` named `fileName`; see the file comment. */
export async function convertFile(fileName: string, data: Uint8Array, limits: ConvertLimits = {}): Promise<ConvertedFile> {
  const ext = extensionOf(fileName);
  const format = IMPORT_FORMATS[ext];
  if (!format) {
    const legacy = LEGACY[ext];
    throw ImportError.unsupported(legacy ? `${legacy}. Supported formats: ${SUPPORTED_FORMATS_TEXT}` : `"${fileName}" is not a supported file type. Supported formats: ${SUPPORTED_FORMATS_TEXT}`);
  }
  notBinary(fileName, format, data);
  const title = titleFromFileName(fileName);
  const one = (content: string): ConvertedFile => ({ format, parts: [{ title, content: notEmpty(fileName, content) }] });
  switch (format) {
    case 'docx':
      return one(await docxToMarkdown(fileName, data, limits.zip));
    case 'xlsx': {
      const parts = await xlsxParts(fileName, title, data, limits.sheet ?? DEFAULT_SHEET_LIMITS, limits.zip);
      if (parts.length === 0) throw ImportError.invalid(`"${fileName}" holds no rows`);
      return { format, parts };
    }
    case 'csv': {
      const parts = csvParts(fileName, title, decodeText(data).replace(/^\ufeff/, ''), limits.sheet ?? DEFAULT_SHEET_LIMITS);
      if (parts.length === 0) throw ImportError.invalid(`"${fileName}" holds no rows`);
      return { format, parts };
    }
    case 'html': {
      const page = mainContent(decodeText(data, true));
      return { format, parts: [{ title: page.title || title, content: notEmpty(fileName, page.markdown) }] };
    }
    case 'markdown':
      return one(tidyMarkdown(decodeText(data).replace(/^\ufeff/, '')));
    case 'pdf':
      return one(await pdfToText(fileName, data));
    case 'json': {
      const text = decodeText(data).replace(/^\ufeff/, '');
      try {
        JSON.parse(text);
      } catch (error) {
        throw ImportError.invalid(`"${fileName}" is not valid JSON (${error instanceof Error ? error.message : String(error)})`);
      }
      return one(text.trim());
    }
    case 'text':
      return one(decodeText(data).replace(/^\ufeff/, '').replace(/\u0000/g, '').trim());
  }
}

export { htmlToMarkdown };
