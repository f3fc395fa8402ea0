import { Body, Controller, Delete, Get, Param, Post, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { Public } from '../auth/public.decorator';
import { AppError } from '../common/app-error';
import { Contract } from '../common/contract';
import {
  DeletedConversationsSchema,
  NewChatRequestSchema,
  NewChatResultSchema,
  VisitorConversationsSchema,
  type NewChatRequest,
  type VisitorConversations,
} from '../shared/contracts/conversations';
import { ConversationsService } from './conversations.service';
import { VisitorConversationReadsService } from './visitor-conversation-reads.service';
import { VisitorIdentity } from './visitor-identity';

import type { SuccessEnvelope as Envelope } from '../shared/contracts/http';
const CONVERSATION_ID = /^[0-9a-f-]{36}$/i;

/**
 * The visitor's own conversations (public; the visitor cookie says whose): read them back after a
 * reload, start a new chat in a vertical, delete them. A request without the cookie gets one (and
 * has no conversations yet). Nobody can reach another visitor's conversations from here.
 */
@Public()
@Controller('api/visitor/conversations')
export class VisitorConversationsController {
  constructor(
    private readonly conversations: ConversationsService,
    private readonly reads: VisitorConversationReadsService,
    private readonly visitors: VisitorIdentity,
  ) {}

  @Get()
  @Contract({ summary: "The visitor's current conversations (one per vertical and legal jurisdiction) with their newest messages", data: VisitorConversationsSchema })
  async list(@Req() req: Request, @Res({ passthrough: true }) res: Response): Promise<Envelope<VisitorConversations>> {
    const visitor = this.visitors.ensure(req, res);
    return { success: true, data: { conversations: visitor.returning ? await this.reads.listForVisitor(visitor.key) : [] } };
  }

  @Post('new')
  @Contract({ summary: '"New chat": close the conversation of a vertical (and jurisdiction); the next question starts another', body: NewChatRequestSchema, data: NewChatResultSchema, status: 200 })
  async newChat(@Body() body: NewChatRequest, @Req() req: Request, @Res({ passthrough: true }) res: Response): Promise<Envelope<{ closed: number }>> {
    const visitor = this.visitors.ensure(req, res);
    return { success: true, data: { closed: await this.conversations.newChat(visitor.key, body) } };
  }

  @Delete()
  @Contract({ summary: "Delete all the visitor's conversations (running replies stop)", data: DeletedConversationsSchema })
  async deleteAll(@Req() req: Request, @Res({ passthrough: true }) res: Response): Promise<Envelope<{ deleted: number }>> {
    const visitor = this.visitors.ensure(req, res);
    return { success: true, data: { deleted: await this.conversations.deleteForVisitor(visitor.key) } };
  }

  @Delete(':id')
  @Contract({ summary: 'Delete one conversation of the visitor', data: DeletedConversationsSchema, errors: [404] })
  async deleteOne(@Param('id') id: string, @Req() req: Request, @Res({ passthrough: true }) res: Response): Promise<Envelope<{ deleted: number }>> {
    const visitor = this.visitors.ensure(req, res);
    const deleted = CONVERSATION_ID.test(id) ? await this.conversations.deleteForVisitor(visitor.key, id.toLowerCase()) : 0;
    if (deleted === 0) throw new AppError('not_found', 'That conversation was not found.');
    return { success: true, data: { deleted } };
  }
}
