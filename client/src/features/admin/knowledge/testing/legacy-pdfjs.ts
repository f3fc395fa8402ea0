/**
 * PDF.js for component tests. The app loads the modern build in the browser; jsdom on Node 20
 * lacks builtins it needs (Promise.try, Uint8Array#toHex, DOMMatrix), so tests use the same
 * release's "legacy" build, with the worker run in the page (no Worker in jsdom), as PDF.js does
 * itself when workers are unavailable.
 */
import type { PdfJsModule } from '../pdf/pdf-text';

export async function loadLegacyPdfJs(): Promise<PdfJsModule> {
  const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const scope = globalThis as { pdfjsWorker?: unknown };
  // @ts-expect-error -- the worker module ships without type declarations
  scope.pdfjsWorker ??= await import('pdfjs-dist/legacy/build/pdf.worker.mjs');
  return pdfjs as unknown as PdfJsModule;
}
