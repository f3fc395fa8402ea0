/// <reference types="vite/client" />
/**
 * Text from a PDF, read in the browser with PDF.js: lines
 * rebuilt from the items' positions (ligatures joined), print headers, footers and page numbers
 * left out (pdf-clean.ts), pages separated by a blank line.
 *
 * PDF.js (about 1 MB with its worker) is loaded only when a PDF is uploaded: `loadPdfJs` imports
 * it on demand, so neither the chat page nor the console's first load carries it. The worker is
 * a file of our own build (Vite emits it and gives its URL), never a CDN.
 */
import type * as PdfJs from 'pdfjs-dist';
import { cleanPdfPages, pageLines, type PdfLine, type PdfTextItem } from './pdf-clean';

export type PdfJsModule = typeof PdfJs;

/** PDF.js with its bundled worker, loaded on first use. */
export async function loadPdfJs(): Promise<PdfJsModule> {
  const [pdfjs, worker] = await Promise.all([import('pdfjs-dist'), import('pdfjs-dist/build/pdf.worker.min.mjs?url')]);
  pdfjs.GlobalWorkerOptions.workerSrc = worker.default;
  return pdfjs;
}

/** The file is not a PDF PDF.js can read (corrupted, encrypted, or not a PDF at all). */
export class PdfParseError extends Error {
  constructor(cause: unknown) {
    super(`The PDF could not be parsed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'PdfParseError';
  }
}

/**
 * The text of every page; `onPage(page, total)` as each page starts being read. Throws
 * PdfParseError when the document or a page cannot be parsed. A PDF of scanned images gives ''
 * (or only whitespace).
 */
export async function extractPdfText(pdfjs: PdfJsModule, data: ArrayBuffer | Uint8Array, onPage?: (page: number, total: number) => void): Promise<string> {
  let task: ReturnType<PdfJsModule['getDocument']> | undefined;
  try {
    task = pdfjs.getDocument({ data, verbosity: pdfjs.VerbosityLevel.ERRORS, isEvalSupported: false });
    const document = await task.promise;
    const pages: PdfLine[][] = [];
    for (let number = 1; number <= document.numPages; number += 1) {
      onPage?.(number, document.numPages);
      const page = await document.getPage(number);
      const content = await page.getTextContent();
      pages.push(pageLines(content.items.filter((item): item is PdfTextItem & typeof item => 'str' in item)));
      page.cleanup();
    }
    return cleanPdfPages(pages);
  } catch (error) {
    throw new PdfParseError(error);
  } finally {
    await task?.destroy();
  }
}
