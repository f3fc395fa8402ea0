import { Controller, Get, Param } from '@nestjs/common';
import { Public } from '../auth/public.decorator';
import { Contract } from '../common/contract';
import { PublicKnowledgeItemSchema, type PublicKnowledgeItem } from '../shared/contracts/knowledge';
import { KnowledgeService } from './knowledge.service';

/** Public: the chat page opens a reply's source (the item's text, which replies already quote). */
@Public()
@Controller('api/public/knowledge')
export class PublicKnowledgeController {
  constructor(private readonly knowledge: KnowledgeService) {}

  @Get(':id')
  @Contract({ summary: "Read a knowledge item's text (a reply's source)", data: PublicKnowledgeItemSchema, errors: [404] })
  async get(@Param('id') id: string): Promise<{ success: true; data: PublicKnowledgeItem }> {
    return { success: true, data: await this.knowledge.getPublic(id) };
  }
}
