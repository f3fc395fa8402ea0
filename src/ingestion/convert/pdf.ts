/**
 * PDF text with pdf.js on the server (the website importer's linked PDFs and API uploads): each
 * page's text lines, pages separated by a blank line. pdf.js ships as an ES module only (see
 * native-require.ts).
 */
import { ImportError } from '../ingestion.errors';
import { nativeRequire } from './native-require';

interface TextItem {
  str: string;
  hasEOL?: boolean;
}
interface PdfJs {
  getDocument(options: Record<string, unknown>): { promise: Promise<PdfDocument>; destroy(): Promise<void> };
}
interface PdfDocument {
  numPages: number;
  getPage(n: number): Promise<{ getTextContent(): Promise<{ items: (TextItem | object)[] }>; cleanup(): void }>;
  destroy(): Promise<void>;
}

let pdfjs: PdfJs | undefined;
function loadPdfJs(): PdfJs {
  pdfjs ??= nativeRequire('pdfjs-dist/legacy/build/pdf.mjs') as PdfJs;
  return pdfjs;
}

/** The text of a PDF, page by page; a clear 400 when it cannot be read or holds no text. */
export async function pdfToText(fileName: string, data: Uint8Array, maxPages = 2000): Promise<string> {
  const task = loadPdfJs().getDocument({ data: new Uint8Array(data), isEvalSupported: false, useSystemFonts: false, disableFontFace: true, verbosity: 0 });
  let doc: PdfDocument;
  try {
    doc = await task.promise;
  } catch {
    await task.destroy().catch(() => undefined);
    throw ImportError.invalid(`"${fileName}" could not be read as a PDF: the file is damaged or protected`);
  }
  try {
    if (doc.numPages > maxPages) throw ImportError.tooLarge(`"${fileName}" has ${doc.numPages} pages; at most ${maxPages} can be imported`);
    const pages: string[] = [];
    for (let n = 1; n <= doc.numPages; n += 1) {
      const page = await doc.getPage(n);
      const content = await page.getTextContent();
      let text = '';
      for (const item of content.items) {
        if (!('str' in item)) continue;
        text += item.str + (item.hasEOL ? '\n' : '');
      }
      page.cleanup();
      pages.push(text.replace(/[ \t]+\n/g, '\n').replace(/[ \t]{2,}/g, ' ').trim());
    }
    const text = pages.filter(Boolean).join('\n\n');
    if (!text.trim()) throw ImportError.invalid(`"${fileName}" contains no extractable text (a scan or images only)`);
    return text;
  } finally {
    await doc.destroy().catch(() => undefined);
  }
}
