/**
 * Spreadsheets (CSV, XLSX) as Markdown tables: one item per sheet, its first non-empty row as the
 * header. A sheet longer than a row group becomes one item per group, each with the header
 * repeated, so a question about row 900 finds a passage that still names its columns. More rows
 * than the cap in a whole file are refused with a message saying how many there are.
 */
import readXlsxFile from 'read-excel-file/node';
import { ImportError } from '../ingestion.errors';
import { safeZip, type ZipLimits } from './zip-guard';

export interface SheetLimits {
  /** Data rows per item. */
  rowsPerItem: number;
  /** Data rows in a whole file. */
  maxRows: number;
  /** Characters per item's table (well under the 1 MB content limit). */
  maxItemChars: number;
}

export const DEFAULT_SHEET_LIMITS: SheetLimits = { rowsPerItem: 100, maxRows: 5000, maxItemChars: 200_000 };

export interface SheetPart {
  title: string;
  content: string;
}

type Cell = string | number | boolean | Date | null | undefined;

function cellText(value: Cell): string {
  if (value === null || value === undefined) return '';
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? '' : value.toISOString().replace(/T00:00:00\.000Z$/, '').replace(/\.000Z$/, 'Z');
  const text = String(value).replace(/\r\n?/g, '\n').trim();
  // A pipe would end the cell and a line break the row: both are written so the table stays whole.
  return text.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\n/g, '<br>');
}

const tableRow = (cells: string[]) => `| ${cells.join(' | ')} |`;

/** Rows as GFM tables, `rowsPerItem` rows (and at most maxItemChars) per part. */
export function sheetParts(name: string, rows: Cell[][], limits: SheetLimits = DEFAULT_SHEET_LIMITS): SheetPart[] {
  const texts = rows.map((row) => row.map(cellText)).filter((row) => row.some((cell) => cell !== ''));
  if (texts.length === 0) return [];
  const width = Math.max(...texts.map((row) => row.length));
  // Columns empty in every row are left out.
  const used = [...Array(width).keys()].filter((c) => texts.some((row) => (row[c] ?? '') !== ''));
  const pick = (row: string[]) => used.map((c) => row[c] ?? '');
  const header = pick(texts[0]).map((cell, i) => cell || `Column ${i + 1}`);
  const head = `${tableRow(header)}\n${tableRow(header.map(() => '---'))}`;
  const body = texts.slice(1).map((row) => tableRow(pick(row)));
  if (body.length === 0) return [{ title: name, content: head }];
  const groups: { from: number; lines: string[] }[] = [];
  let current: { from: number; lines: string[]; chars: number } | undefined;
  body.forEach((line, i) => {
    if (!current || current.lines.length >= limits.rowsPerItem || current.chars + line.length > limits.maxItemChars) {
      current = { from: i, lines: [], chars: head.length };
      groups.push(current);
    }
    current.lines.push(line);
    current.chars += line.length + 1;
  });
  if (groups.length === 1) return [{ title: name, content: `${head}\n${body.join('\n')}` }];
  return groups.map((g) => ({
    title: `${name} (rows ${g.from + 1}–${g.from + g.lines.length})`,
    content: `${head}\n${g.lines.join('\n')}`,
  }));
}

function checkRowCap(fileName: string, rows: number, limits: SheetLimits): void {
  if (rows > limits.maxRows) {
    throw ImportError.tooLarge(`"${fileName}" has ${rows.toLocaleString('en-US')} rows; at most ${limits.maxRows.toLocaleString('en-US')} rows can be imported from one file. Split it into smaller files.`);
  }
}

/** RFC 4180 CSV (quoted fields, doubled quotes, line breaks inside quotes); `;` or tab when the first line uses them instead. */
export function parseCsv(text: string): string[][] {
  const firstLine = text.slice(0, text.indexOf('\n') === -1 ? text.length : text.indexOf('\n'));
  const counts = { ',': firstLine.split(',').length, ';': firstLine.split(';').length, '\t': firstLine.split('\t').length };
  const delimiter = (Object.entries(counts).sort((a, b) => b[1] - a[1])[0][0] as ',' | ';' | '\t') ?? ',';
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i += 1;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"' && field === '') quoted = true;
    else if (c === delimiter) {
      row.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i += 1;
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += c;
  }
  if (field !== '' || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}

export function csvParts(fileName: string, title: string, text: string, limits: SheetLimits = DEFAULT_SHEET_LIMITS): SheetPart[] {
  const rows = parseCsv(text);
  checkRowCap(fileName, Math.max(0, rows.length - 1), limits);
  return sheetParts(title, rows, limits);
}

/** Every sheet of an XLSX workbook, each titled "<file title> – <sheet>" when there are several. */
export async function xlsxParts(fileName: string, title: string, data: Uint8Array, limits: SheetLimits = DEFAULT_SHEET_LIMITS, zipLimits?: ZipLimits): Promise<SheetPart[]> {
  const archive = safeZip(data, fileName, zipLimits);
  let sheets: { sheet: string; data: Cell[][] }[];
  try {
    sheets = (await readXlsxFile(archive)) as { sheet: string; data: Cell[][] }[];
  } catch (error) {
    const reason = error instanceof Error && error.message ? `: ${error.message.slice(0, 200)}` : '';
    throw ImportError.invalid(`"${fileName}" could not be read as an Excel workbook${reason}`);
  }
  checkRowCap(fileName, sheets.reduce((n, s) => n + Math.max(0, s.data.length - 1), 0), limits);
  const several = sheets.filter((s) => s.data.length > 0).length > 1;
  return sheets.flatMap((s) => sheetParts(several ? `${title} – ${s.sheet}` : title, s.data, limits));
}
