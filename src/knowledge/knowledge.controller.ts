import { Body, Controller, Delete, Get, Param, Post, Put, Query } from '@nestjs/common';
import { AdminEventsService } from '../admin-events/admin-events.service';
import { KnowledgeItemDto, parseKnowledgeItemBody, parseListQuery, toKnowledgeItemDto } from './dto/knowledge-item.dto';
import { KnowledgeService } from './knowledge.service';

type Envelope<T> = { success: true; data: T };

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
  async list(@Query() query: Record<string, unknown>): Promise<Envelope<KnowledgeItemDto[]>> {
    return { success: true, data: (await this.knowledge.listWithAttachments(parseListQuery(query))).map(toKnowledgeItemDto) };
  }

  @Get(':id')
  async get(@Param('id') id: string): Promise<Envelope<KnowledgeItemDto>> {
    return { success: true, data: toKnowledgeItemDto(await this.knowledge.get(id)) };
  }

  @Post()
  async create(@Body() body: unknown): Promise<Envelope<KnowledgeItemDto>> {
    const item = await this.knowledge.create(parseKnowledgeItemBody(body));
    this.adminEvents.emit('knowledge:changed', { id: item.id, action: 'created' });
    return { success: true, data: toKnowledgeItemDto(item) };
  }

  @Put(':id')
  async update(@Param('id') id: string, @Body() body: unknown): Promise<Envelope<KnowledgeItemDto>> {
    const item = await this.knowledge.update(id, parseKnowledgeItemBody(body));
    this.adminEvents.emit('knowledge:changed', { id: item.id, action: 'updated' });
    return { success: true, data: toKnowledgeItemDto(item) };
  }

  @Delete(':id')
  async remove(@Param('id') id: string): Promise<Envelope<{ id: string }>> {
    await this.knowledge.remove(id);
    this.adminEvents.emit('knowledge:changed', { id, action: 'deleted' });
    return { success: true, data: { id } };
  }
}
