import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { Audit } from '../audit/audit.decorator';
import { CurrentAdmin } from '../auth/current-admin.decorator';
import { Roles } from '../auth/roles.decorator';
import type { AdminAuth } from '../auth/session.service';
import { Contract } from '../common/contract';
import {
  HandoffInfoSchema,
  InboxConversationSchema,
  InboxMessageInputSchema,
  InboxMessageSchema,
  InboxResolveSchema,
  InboxSchema,
  InboxTakeSchema,
  InboxTypingSchema,
  type InboxMessageInput,
  type InboxResolve,
  type InboxTake,
} from '../shared/contracts/handoff';
import { ACCESS } from '../shared/contracts/roles';
import { HandoffService, type Member } from './handoff.service';

const memberOf = (admin: AdminAuth): Member => ({ id: admin.user.id, name: admin.user.name, email: admin.user.email, role: admin.user.role });

/**
 * The inbox of the members who answer visitors (agents, admins, owners): conversations waiting for
 * a person and open ones, take or assign, reply or leave an internal note, show typing, resolve.
 * HandoffService writes each transition, reply and note to the audit log itself (with the
 * conversation as target), so the routes are not recorded a second time.
 */
@Controller('api/inbox')
@Roles(...ACCESS.conversationsAnswer)
export class InboxController {
  constructor(private readonly handoff: HandoffService) {}

  @Get()
  @Contract({ summary: 'Conversations waiting for a person (longest first) and open ones (yours first)', data: InboxSchema })
  async list(@CurrentAdmin() admin: AdminAuth) {
    return { success: true, data: await this.handoff.inbox(memberOf(admin)) };
  }

  @Get(':conversationId')
  @Contract({ summary: 'A conversation of the inbox with its transcript (sources, confidence, internal notes)', data: InboxConversationSchema, errors: [404] })
  async get(@Param('conversationId') id: string) {
    return { success: true, data: await this.handoff.conversation(id) };
  }

  @Post(':conversationId/take')
  @HttpCode(200)
  @Audit(false)
  @Contract({
    summary: 'Take a waiting conversation, or assign it (assigneeId) to a member',
    description: '409 when someone else took it first, or when `version` is not the current one (someone acted on it meanwhile).',
    body: InboxTakeSchema,
    data: HandoffInfoSchema,
    errors: [404, 409],
  })
  async take(@CurrentAdmin() admin: AdminAuth, @Param('conversationId') id: string, @Body() body: InboxTake) {
    return { success: true, data: await this.handoff.take(memberOf(admin), id, body) };
  }

  @Post(':conversationId/messages')
  @Audit(false)
  @Contract({
    summary: 'Reply to the visitor (live as chat:human, by mail when they left) or add an internal note (internal: true)',
    description: 'A reply to a waiting conversation takes it. 409 for a resolved conversation, or one nobody asked a person in (notes are always accepted).',
    body: InboxMessageInputSchema,
    data: InboxMessageSchema,
    status: 201,
    errors: [404, 409, 413],
  })
  async message(@CurrentAdmin() admin: AdminAuth, @Param('conversationId') id: string, @Body() body: InboxMessageInput) {
    return { success: true, data: await this.handoff.postMessage(memberOf(admin), id, body) };
  }

  @Post(':conversationId/typing')
  @HttpCode(200)
  @Audit(false)
  @Contract({ summary: 'Show the visitor that you are typing (typing: true) or stopped', body: InboxTypingSchema, data: InboxTypingSchema, errors: [404, 409] })
  async typing(@CurrentAdmin() admin: AdminAuth, @Param('conversationId') id: string, @Body() body: { typing: boolean }) {
    await this.handoff.typing(memberOf(admin), id, body.typing);
    return { success: true, data: { typing: body.typing } };
  }

  @Post(':conversationId/resolve')
  @HttpCode(200)
  @Audit(false)
  @Contract({ summary: 'Resolve the conversation: the next visitor message goes back to the assistant (or reopens it, a setting)', body: InboxResolveSchema, data: HandoffInfoSchema, errors: [404, 409] })
  async resolve(@CurrentAdmin() admin: AdminAuth, @Param('conversationId') id: string, @Body() body: InboxResolve) {
    return { success: true, data: await this.handoff.resolve(memberOf(admin), id, body ?? {}) };
  }
}
