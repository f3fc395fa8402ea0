import { Controller, Post, Query, UploadedFile, UseInterceptors } from '@nestjs/common';
import { ApiBody, ApiConsumes } from '@nestjs/swagger';
import type { z } from 'zod';
import { AdminEventsService } from '../admin-events/admin-events.service';
import { Roles } from '../auth/roles.decorator';
import { Contract } from '../common/contract';
import { ACCESS } from '../shared/contracts/roles';
import { type ImportedFile, ImportedFileSchema, ImportFileQuerySchema, IMPORT_FORMATS_LABEL } from '../shared/contracts/knowledge-import';
import { FileImportService, type UploadedFile as ReceivedFile } from './file-import.service';
import { FileUploadInterceptor } from './file-upload.interceptor';

import type { SuccessEnvelope as Envelope } from '../shared/contracts/http';

/** Knowledge from files (and, below, websites): converted on the server, stored as Markdown items. */
@Controller('api/knowledge/import')
export class ImportController {
  constructor(
    private readonly files: FileImportService,
    private readonly adminEvents: AdminEventsService,
  ) {}

  @Post('file')
  @Roles(...ACCESS.knowledgeWrite)
  @UseInterceptors(FileUploadInterceptor)
  @ApiConsumes('multipart/form-data')
  @ApiBody({ required: true, schema: { type: 'object', required: ['file'], properties: { file: { type: 'string', format: 'binary', description: `${IMPORT_FORMATS_LABEL}; at most 20 MB.` } } } })
  @Contract({
    summary: 'Import a file as knowledge items',
    description:
      `Converts the multipart field \`file\` (${IMPORT_FORMATS_LABEL}) to Markdown: a Word document or a web page keeps its headings, lists and tables, ` +
      'a spreadsheet becomes one table per sheet (one item per 100 rows; at most 5,000 rows). One item per file, sheet or row group. ' +
      'With `preview=true` nothing is stored. Legacy .doc and .xls files are refused with 415.',
    query: ImportFileQuerySchema,
    data: ImportedFileSchema,
    status: 201,
    errors: [413, 415],
  })
  async importFile(@UploadedFile() file: ReceivedFile, @Query() query: z.output<typeof ImportFileQuerySchema>): Promise<Envelope<ImportedFile>> {
    const imported = await this.files.importFile(file, query);
    if (imported.stored) for (const item of imported.items) this.adminEvents.emit('knowledge:changed', { id: item.id!, action: 'created' });
    return { success: true, data: imported };
  }
}
