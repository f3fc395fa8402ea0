import { describe, expect, it } from 'vitest';
import { loadLegacyPdfJs } from '../testing/legacy-pdfjs';
import { makePdf } from '../testing/make-pdf';
import { extractPdfText, PdfParseError } from './pdf-text';

describe('extractPdfText (real PDF.js on generated PDFs)', () => {
  it('gives each line of a page on a line of its own and separates pages with a blank line, reporting each page as it starts', async () => {
    const pdfjs = await loadLegacyPdfJs();
    const pages: Array<[number, number]> = [];
    const text = await extractPdfText(
      pdfjs,
      makePdf([['Welcome aboard', 'Coffee is on floor two'], ['Twenty five vacation days'], ['Receipts within thirty days (always)']]),
      (page, total) => pages.push([page, total]),
    );
    expect(text).toBe('Welcome aboard\nCoffee is on floor two\n\nTwenty five vacation days\n\nReceipts within thirty days (always)');
    expect(pages).toEqual([
      [1, 3],
      [2, 3],
      [3, 3],
    ]);
  });

  it('gives only whitespace for pages without text (a scan)', async () => {
    const text = await extractPdfText(await loadLegacyPdfJs(), makePdf([[], []]));
    expect(text.trim()).toBe('');
  });

  it('throws PdfParseError for a file that is not a PDF', async () => {
    await expect(extractPdfText(await loadLegacyPdfJs(), new TextEncoder().encode('PK\u0003\u0004 this is a zip, not a PDF'))).rejects.toBeInstanceOf(PdfParseError);
  });
});
