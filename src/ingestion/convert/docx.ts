/**
 * Word (.docx) to Markdown: mammoth maps the document's styles to HTML (Heading 1 -> h1, lists,
 * tables), then htmlToMarkdown. Images are left out (their alt text stays).
 */
import mammoth from 'mammoth';
import { ImportError } from '../ingestion.errors';
import { htmlToMarkdown } from './markdown';
import { safeZip, type ZipLimits } from './zip-guard';

export async function docxToMarkdown(fileName: string, data: Uint8Array, zipLimits?: ZipLimits): Promise<string> {
  const archive = safeZip(data, fileName, zipLimits);
  let html: string;
  try {
    ({ value: html } = await mammoth.convertToHtml(
      { buffer: archive },
      // Inline images would be stored as data URLs; only their alt text is kept.
      { convertImage: mammoth.images.imgElement(async () => ({ src: '' })) },
    ));
  } catch (error) {
    const reason = error instanceof Error && error.message ? `: ${error.message.slice(0, 200)}` : '';
    throw ImportError.invalid(`"${fileName}" could not be read as a Word document${reason}`);
  }
  return htmlToMarkdown(html);
}
