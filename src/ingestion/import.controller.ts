import { Body, Controller, Get, Param, Post, Query, UploadedFile, UseInterceptors } from '@nestjs/common';
import { ApiBody, ApiConsumes } from '@nestjs/swagger';
import type { z } from 'zod';
import { AdminEventsService } from '../admin-events/admin-events.service';
import { Roles } from '../auth/roles.decorator';
import { Contract } from '../common/contract';
import { ACCESS } from '../shared/contracts/roles';
import {
  type CheckedSiteImportRequest,
  type ImportedFile,
  ImportedFileSchema,
  ImportFileQuerySchema,
  IMPORT_FORMATS_LABEL,
  type SiteImport,
  SiteImportRequestSchema,
  SiteImportSchema,
} from '../shared/contracts/knowledge-import';
import { SiteImportService } from './site/site-import.service';
import { FileImportService, type UploadedFile as ReceivedFile } from './file-import.service';
import { FileUploadInterceptor } from './file-upload.interceptor';

import type { SuccessEnvelope as Envelope } from '../shared/contracts/http';

/** Knowledge from files (and, below, websites): converted on the server, stored as Markdown items. */
@Controller('api/knowledge/import')
export class ImportController {
  constructor(
    private readonly files: FileImportService,
    private readonly sites: SiteImportService,
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

  @Post('site')
  @Roles(...ACCESS.knowledgeWrite)
  @Contract({
    summary: 'Import a website as knowledge items',
    description:
      'Starts importing the pages of a website: from a start page (the crawl stays on its host and under its folder, following links up to `maxDepth`) ' +
      'or from a sitemap or sitemap index. robots.txt and its Crawl-delay are obeyed; each page is fetched with a 5 MB and 15 s limit, and its main content ' +
      '(navigation, headers and footers left out) becomes one Markdown item with the page\'s URL, which answers cite. The address is checked at once: ' +
      'a private, loopback or link-local address (unless FETCH_ALLOW_PRIVATE names it), a start page that does not open or a malformed sitemap is a 400 and nothing is stored. ' +
      'The crawl runs as a job: follow it with GET /api/knowledge/import/site/{jobId}.',
    body: SiteImportRequestSchema,
    data: SiteImportSchema,
    status: 202,
  })
  async importSite(@Body() body: CheckedSiteImportRequest): Promise<Envelope<SiteImport>> {
    return { success: true, data: await this.sites.start(body) };
  }

  @Get('site')
  @Roles(...ACCESS.knowledgeRead)
  @Contract({ summary: 'List website imports', description: 'The 50 latest website imports, newest first, with their progress.', data: [SiteImportSchema] })
  async listSites(): Promise<Envelope<SiteImport[]>> {
    return { success: true, data: await this.sites.list() };
  }

  @Get('site/:jobId')
  @Roles(...ACCESS.knowledgeRead)
  @Contract({ summary: 'A website import and its progress', description: 'Pages done of pages known, what was added, updated, removed or left unchanged, and each page that failed or was passed over.', data: SiteImportSchema, errors: [404] })
  async getSite(@Param('jobId') jobId: string): Promise<Envelope<SiteImport>> {
    return { success: true, data: await this.sites.get(jobId) };
  }

  @Post('site/:jobId/cancel')
  @Roles(...ACCESS.knowledgeWrite)
  @Contract({ summary: 'Cancel a website import', description: 'Stops the crawl after the page in hand; the pages imported so far stay. Resume it with /resume.', data: SiteImportSchema, status: 200, errors: [404, 409] })
  async cancelSite(@Param('jobId') jobId: string): Promise<Envelope<SiteImport>> {
    return { success: true, data: await this.sites.cancel(jobId) };
  }

  @Post('site/:jobId/resume')
  @Roles(...ACCESS.knowledgeWrite)
  @Contract({ summary: 'Resume a cancelled or failed website import', description: 'Goes on from the page where it stopped.', data: SiteImportSchema, status: 200, errors: [404, 409] })
  async resumeSite(@Param('jobId') jobId: string): Promise<Envelope<SiteImport>> {
    return { success: true, data: await this.sites.resume(jobId) };
  }

  @Post('site/:jobId/resync')
  @Roles(...ACCESS.knowledgeWrite)
  @Contract({
    summary: 'Re-sync a website import',
    description: 'Fetches the start (the sitemap anew) and every imported page again: changed pages update their item, pages that are gone (404, 410) remove theirs, new pages are added, unchanged ones are left alone. Also runs every `resyncHours`.',
    data: SiteImportSchema,
    status: 202,
    errors: [404, 409],
  })
  async resyncSite(@Param('jobId') jobId: string): Promise<Envelope<SiteImport>> {
    return { success: true, data: await this.sites.resync(jobId) };
  }
}
