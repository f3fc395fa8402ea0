import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AdminEventsModule } from '../admin-events/admin-events.module';
import { KnowledgeModule } from '../knowledge/knowledge.module';
import { FileImportService } from './file-import.service';
import { ImportController } from './import.controller';
import { SiteImportRow } from './site/site-import.entity';
import { SiteImportService } from './site/site-import.service';

/**
 * Knowledge from what a company already has: files (DOCX, Markdown, HTML, CSV, XLSX, TXT, JSON,
 * PDF) converted to Markdown items, and websites crawled into one item per page. Writes go through KnowledgeService only; this module never
 * touches the knowledge tables itself.
 */
@Module({
  imports: [KnowledgeModule, AdminEventsModule, TypeOrmModule.forFeature([SiteImportRow])],
  controllers: [ImportController],
  providers: [FileImportService, SiteImportService],
})
export class IngestionModule {}
