/**
 * Importing an uploaded file: convert it (convert/convert-file.ts), check every item it becomes
 * with the knowledge item contract, then store them all in one transaction (or, for a preview,
 * return them unstored). Any refusal leaves nothing stored.
 */
import { Injectable } from '@nestjs/common';
import { KnowledgeService } from '../knowledge/knowledge.service';
import { firstProblem } from '../shared/contracts/rules';
import { type CheckedKnowledgeItem, KnowledgeItemInputSchema } from '../shared/contracts/knowledge';
import type { ImportedFile, ImportFileQuery } from '../shared/contracts/knowledge-import';
import { AppError } from '../common/app-error';
import { convertFile } from './convert/convert-file';

export interface UploadedFile {
  originalname: string;
  buffer: Buffer;
}

@Injectable()
export class FileImportService {
  constructor(private readonly knowledge: KnowledgeService) {}

  async importFile(file: UploadedFile, query: ImportFileQuery): Promise<ImportedFile> {
    // Browsers send the name as latin1 bytes of its UTF-8 form; turn it back into text.
    const fileName = Buffer.from(file.originalname, 'latin1').toString('utf8').replace(/[\\/\u0000-\u001f]/g, '_').slice(0, 255);
    const started = performance.now();
    const converted = await convertFile(fileName, file.buffer);
    const convertMs = Math.round(performance.now() - started);
    const tags = query.tags ?? ['uploaded', 'document', converted.format];
    const inputs: CheckedKnowledgeItem[] = converted.parts.map((part, i) => {
      const parsed = KnowledgeItemInputSchema.safeParse({ title: part.title.slice(0, 200), content: part.content, category: query.category, vertical: query.vertical, tags, attachments: [] });
      if (!parsed.success) {
        const problem = firstProblem(parsed.error);
        const where = converted.parts.length > 1 ? ` (item ${i + 1} of ${converted.parts.length}, "${part.title}")` : '';
        const message = problem.code === 'payload_too_large' ? `"${fileName}" converts to more than 1 MB of text${where}; split the file` : `${problem.message}${where}`;
        throw new AppError(problem.code, message);
      }
      return parsed.data;
    });
    const view = (item: { id?: string; title: string; content: string; category: string; vertical: string; tags: string[] }) => ({ id: item.id, title: item.title, content: item.content, category: item.category, vertical: item.vertical, tags: item.tags });
    if (query.preview) return { fileName, format: converted.format, stored: false, items: inputs.map(view), convertMs };
    const created = await this.knowledge.createMany(inputs);
    return { fileName, format: converted.format, stored: true, items: created.map(view), convertMs };
  }
}
