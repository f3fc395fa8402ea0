import { Module } from '@nestjs/common';
import { AdminEventsModule } from '../admin-events/admin-events.module';
import { KnowledgeModule } from '../knowledge/knowledge.module';
import { FileImportService } from './file-import.service';
import { ImportController } from './import.controller';

/**
 * Knowledge from what a company already has: files (DOCX, Markdown, HTML, CSV, XLSX, TXT, JSON,
 * PDF) converted to Markdown items. Writes go through KnowledgeService only; this module never
 * touches the knowledge tables itself.
 */
@Module({
  imports: [KnowledgeModule, AdminEventsModule],
  controllers: [ImportController],
  providers: [FileImportService],
})
export class IngestionModule {}
