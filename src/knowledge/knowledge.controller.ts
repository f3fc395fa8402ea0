import { Body, Controller, Delete, Get, Param, Post, Put, Query } from '@nestjs/common';
import { AdminEventsService } from '../admin-events/admin-events.service';
import { Contract } from '../common/contract';
import { Audit } from '../audit/audit.decorator';
import { Roles } from '../auth/roles.decorator';
import { ACCESS } from '../shared/contracts/roles';
import {
  type CheckedKnowledgeItem,
  DeletedSchema,
  type KnowledgeItem,
  KnowledgeItemInputSchema,
  KnowledgeItemSchema,
  KnowledgeListQuerySchema,
} from '../shared/contracts/knowledge';
import type { z } from 'zod';
import { KnowledgeService } from './knowledge.service';

import type { SuccessEnvelope as Envelope } from '../shared/contracts/http';

/**
 * The knowledge base API (product-spec section 7 "Knowledge"); admin only (global guard).
 * Each committed create, update and delete is pushed as `knowledge:changed` to every open console.
 */
@Controller('api/knowledge')
export class KnowledgeController {
  constructor(
    private readonly knowledge: KnowledgeService,
    private readonly adminEvents: AdminEventsService,
  ) {}

  @Get()
  @Roles(...ACCESS.knowledgeRead)
  @Contract({
    summary: 'List knowledge items',
    description: 'Newest first; with `search`, ranked by relevance (BM25) first. Attachments are listed without their content.',
    query: KnowledgeListQuerySchema,
    data: [KnowledgeItemSchema],
  })
  async list(@Query() query: z.output<typeof KnowledgeListQuerySchema>): Promise<Envelope<KnowledgeItem[]>> {
    return { success: true, data: await this.knowledge.listWithAttachments(query) };
  }

  @Get(':id')
  @Roles(...ACCESS.knowledgeRead)
  @Contract({ summary: 'Read a knowledge item with its attachments', data: KnowledgeItemSchema, errors: [404] })
  async get(@Param('id') id: string): Promise<Envelope<KnowledgeItem>> {
    return { success: true, data: await this.knowledge.get(id) };
  }

  @Post()
  @Roles(...ACCESS.knowledgeWrite)
  @Audit('knowledge.create', { target: 'knowledge', idFrom: (reply: Envelope<KnowledgeItem>) => reply.data.id })
  @Contract({ summary: 'Create a knowledge item', body: KnowledgeItemInputSchema, data: KnowledgeItemSchema, status: 201, errors: [413, 415] })
  async create(@Body() input: CheckedKnowledgeItem): Promise<Envelope<KnowledgeItem>> {
    const item = await this.knowledge.create(input);
    this.adminEvents.emit('knowledge:changed', { id: item.id, action: 'created' });
    return { success: true, data: item };
  }

  @Put(':id')
  @Roles(...ACCESS.knowledgeWrite)
  @Audit('knowledge.update', { target: 'knowledge' })
  @Contract({
    summary: 'Replace a knowledge item',
    description: 'Send the whole item. An attachment sent with its id and no content keeps its stored file; attachments left out are removed.',
    body: KnowledgeItemInputSchema,
    data: KnowledgeItemSchema,
    errors: [404, 413, 415],
  })
  async update(@Param('id') id: string, @Body() input: CheckedKnowledgeItem): Promise<Envelope<KnowledgeItem>> {
    const item = await this.knowledge.update(id, input);
    this.adminEvents.emit('knowledge:changed', { id: item.id, action: 'updated' });
    return { success: true, data: item };
  }

  @Delete(':id')
  @Roles(...ACCESS.knowledgeWrite)
  @Audit('knowledge.delete', { target: 'knowledge' })
  @Contract({ summary: 'Delete a knowledge item', data: DeletedSchema, errors: [404] })
  async remove(@Param('id') id: string): Promise<Envelope<{ id: string }>> {
    await this.knowledge.remove(id);
    this.adminEvents.emit('knowledge:changed', { id, action: 'deleted' });
    return { success: true, data: { id } };
  }
}
