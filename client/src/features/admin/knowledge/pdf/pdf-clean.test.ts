/**
 * PDF cleanup on real PDFs printed by Chromium with its default print header (date, time, title)
 * and footer (address, "n/m"), in a serif font whose "fi"/"ff" ligatures PDF.js gives as separate
 * items (testing/fixtures/make-printed-pdfs.cjs made them).
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadLegacyPdfJs } from '../testing/legacy-pdfjs';
import { cleanPdfPages, isPrintMargin, joinLigatures, pageLines, type PdfLine } from './pdf-clean';
import { extractPdfText } from './pdf-text';

const fixture = (name: string) => new Uint8Array(readFileSync(resolve(__dirname, '../testing/fixtures', name)));

describe('extractPdfText on PDFs printed by Chromium', () => {
  it('a one-page print: no date/time header, no address footer, no "1/1"; ligatures joined', async () => {
    const text = await extractPdfText(await loadLegacyPdfJs(), fixture('refund-notes-printed.pdf'));
    expect(text).toBe('Refund notes\nRefunds are filed by the office within fifteen days.');
    expect(text).not.toMatch(/\d{1,2}\/\d{1,2}\/\d{2}, \d{1,2}:\d{2}/);
    expect(text).not.toContain('about:blank');
    expect(text).not.toContain('1/1');
    expect(text).not.toMatch(/\bfi le|o ff ice|fi fteen/);
  });

  it('a two-page print: both pages kept, each page header and footer ("1/2", "2/2") gone', async () => {
    const text = await extractPdfText(await loadLegacyPdfJs(), fixture('records-policy-printed.pdf'));
    expect(text.startsWith('Records policy\nParagraph 1: the office keeps every signed file for five years; financial officers reflect')).toBe(true);
    expect(text).toContain('Paragraph 30:');
    expect(text).not.toMatch(/\b[12]\/2\b/);
    expect(text).not.toContain('about:blank');
    expect(text).not.toMatch(/AM|PM/);
    // The title is the first line once (the print header repeated it on each page).
    expect(text.match(/Records policy/g)).toHaveLength(1);
    expect(text.split('\n\n')).toHaveLength(2);
  });
});

describe('pdf-clean pure functions', () => {
  it('joins touching items and keeps spaced ones apart', () => {
    const item = (str: string, x: number, width: number) => ({ str, transform: [1, 0, 0, 1, x, 700], width, height: 12 });
    expect(pageLines([item('o', 0, 6), item('ff', 6, 8), item('ice', 14, 18), item('hours', 40, 30)])).toEqual([{ text: 'office hours', y: 700 }]);
    expect(joinLigatures('\uFB01le \uFB02ow')).toBe('file flow');
  });

  it('recognises page numbers, print dates and addresses, not ordinary lines', () => {
    for (const line of ['1/1', '3', 'Page 2 of 9', '- 4 -', '11/23/26, 7:12 PM Employee handbook', 'about:blank 1/2', 'https://intranet.example.com/policy 3/7']) expect(isPrintMargin(line)).toBe(true);
    for (const line of ['Refunds take 14 days.', '2024 annual report', 'Section 3: Leave']) expect(isPrintMargin(line)).toBe(false);
  });

  it('drops a running header repeated on the pages (numbers aside), keeps body lines that merely repeat elsewhere', () => {
    const page = (n: number, body: string[]): PdfLine[] => [{ text: `ACME Corp handbook, chapter ${n}`, y: 800 }, ...body.map((text, i) => ({ text, y: 700 - i * 20 })), { text: 'Confidential', y: 20 }];
    const text = cleanPdfPages([page(1, ['Leave is 25 days.', 'Ask HR.']), page(2, ['Ask HR.', 'Expenses within 30 days.']), page(3, ['Travel by train.', 'More.'])]);
    expect(text).toBe('Leave is 25 days.\nAsk HR.\n\nAsk HR.\nExpenses within 30 days.\n\nTravel by train.\nMore.');
  });
});
