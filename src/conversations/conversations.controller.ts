import { Body, Controller, Get, Header, Param, Put, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { AppError } from '../common/app-error';
import { Contract } from '../common/contract';
import { Audit } from '../audit/audit.decorator';
import { Roles } from '../auth/roles.decorator';
import { ACCESS } from '../shared/contracts/roles';
import {
  ConversationExportSchema,
  ConversationListQuerySchema,
  ConversationPageSchema,
  ConversationTranscriptSchema,
  GapListQuerySchema,
  GapPageSchema,
  GapUpdateSchema,
  KnowledgeGapSchema,
  type ConversationExport,
  type ConversationListQuery,
  type ConversationPage,
  type ConversationTranscript,
  type GapListQuery,
  type GapPage,
  type GapUpdate,
  type KnowledgeGap,
} from '../shared/contracts/conversations';
import { ConversationTranscriptsService } from './conversation-transcripts.service';
import { ConversationsClock } from './conversations-clock';
import { KnowledgeGapsService } from './knowledge-gaps.service';

import type { SuccessEnvelope as Envelope } from '../shared/contracts/http';
const ID = /^[0-9a-f-]{36}$/i;

function idOf(raw: string, what: string): string {
  if (!ID.test(raw)) throw new AppError('not_found', `That ${what} was not found.`);
  return raw.toLowerCase();
}

/** Visitors' conversations for the admin console (admin session: global guard and AdminApiGate). */
@Controller('api/conversations')
export class ConversationsController {
  constructor(
    private readonly transcripts: ConversationTranscriptsService,
    private readonly clock: ConversationsClock,
  ) {}

  @Get()
  @Roles(...ACCESS.conversationsRead)
  @Contract({ summary: 'Conversations, newest activity first: filters, full-text search in their messages, pages', query: ConversationListQuerySchema, data: ConversationPageSchema })
  async list(@Query() query: ConversationListQuery): Promise<Envelope<ConversationPage>> {
    return { success: true, data: await this.transcripts.list(query) };
  }

  @Get(':id')
  @Roles(...ACCESS.conversationsRead)
  @Contract({ summary: 'A conversation with every message, and per reply its sources, confidence, vote and timings', data: ConversationTranscriptSchema, errors: [404] })
  async get(@Param('id') id: string): Promise<Envelope<ConversationTranscript>> {
    return { success: true, data: await this.transcripts.transcript(idOf(id, 'conversation')) };
  }

  @Get(':id/export')
  @Roles(...ACCESS.conversationsRead)
  @Header('Cache-Control', 'no-store')
  @Contract({ summary: 'Download a conversation as a JSON file', response: ConversationExportSchema, errors: [404] })
  async export(@Param('id') id: string, @Res({ passthrough: true }) res: Response): Promise<ConversationExport> {
    const file = await this.transcripts.export(idOf(id, 'conversation'), this.clock.now());
    res.setHeader('Content-Disposition', `attachment; filename="conversation-${file.conversation.id}.json"`);
    return file;
  }
}

/** Knowledge gaps for the admin console (admin session). */
@Controller('api/knowledge-gaps')
export class KnowledgeGapsController {
  constructor(private readonly gaps: KnowledgeGapsService) {}

  @Get()
  @Roles(...ACCESS.conversationsRead)
  @Contract({ summary: 'Questions the knowledge base did not answer well, grouped, most asked first', query: GapListQuerySchema, data: GapPageSchema })
  async list(@Query() query: GapListQuery): Promise<Envelope<GapPage>> {
    return { success: true, data: await this.gaps.list(query) };
  }

  @Put(':id')
  @Roles(...ACCESS.knowledgeGapsWrite)
  @Audit('knowledge-gap.update', { target: 'knowledge-gap' })
  @Contract({ summary: 'Mark a knowledge gap resolved, or open again', body: GapUpdateSchema, data: KnowledgeGapSchema, errors: [404] })
  async update(@Param('id') id: string, @Body() body: GapUpdate): Promise<Envelope<KnowledgeGap>> {
    return { success: true, data: await this.gaps.setStatus(idOf(id, 'knowledge gap'), body.status) };
  }
}
