import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Req } from '@nestjs/common';
import type { Request } from 'express';
import { Audit } from '../audit/audit.decorator';
import { CurrentAdmin } from '../auth/current-admin.decorator';
import { Public } from '../auth/public.decorator';
import { Roles } from '../auth/roles.decorator';
import type { AdminAuth } from '../auth/session.service';
import { clientAddressOf } from '../common/client-address';
import { Contract } from '../common/contract';
import { ACCESS } from '../shared/contracts/roles';
import {
  AcceptedInvitationSchema,
  InvitationAcceptSchema,
  InvitationCreateSchema,
  InvitationPreviewSchema,
  InvitationSchema,
  MemberSchema,
  MemberUpdateSchema,
  TeamSchema,
  type InvitationAccept,
  type MemberUpdate,
} from '../shared/contracts/team';
import type { Role } from '../shared/contracts/roles';
import { TeamService, type Actor } from './team.service';

function actorOf(admin: AdminAuth): Actor {
  return { id: admin.user.id, role: admin.user.role, name: admin.user.name, email: admin.user.email };
}

/** This server as the inviting browser reached it: the base of the invitation link when PUBLIC_URL is not set. */
function originOf(req: Request): string {
  const address = clientAddressOf(req);
  return `${address.proto}://${address.host ?? 'localhost'}`;
}

/**
 * The team: members and invitations (owners and admins), and the invitation link's two public
 * routes (read it, accept it). An admin cannot touch owners; the last enabled owner stays (409).
 */
@Controller('api/team')
@Roles(...ACCESS.team)
export class TeamController {
  constructor(private readonly team: TeamService) {}

  @Get('members')
  @Contract({ summary: 'The members (role, status, second factor, last sign-in) and the invitations waiting to be accepted', data: TeamSchema })
  async members() {
    return { success: true, data: await this.team.team() };
  }

  @Post('invitations')
  @Audit('member.invite', { target: 'invitation', idFrom: (reply) => reply.data?.id })
  @Contract({
    summary: 'Invite someone by email: a mail with a single-use link, valid 72 hours',
    description: 'A new invitation to the same address replaces the pending one. 409 when the address is already a member; 403 when an admin invites an owner.',
    body: InvitationCreateSchema,
    data: InvitationSchema,
    status: 201,
    errors: [403, 409],
  })
  async invite(@CurrentAdmin() admin: AdminAuth, @Body() body: { email: string; role: Role }, @Req() req: Request) {
    return { success: true, message: `Invitation sent to ${body.email}`, data: await this.team.invite(actorOf(admin), body, originOf(req)) };
  }

  @Delete('invitations/:id')
  @HttpCode(200)
  @Audit('invitation.revoke', { target: 'invitation' })
  @Contract({ summary: 'Withdraw a pending invitation: its link stops working', data: InvitationSchema, errors: [403, 404] })
  async revoke(@CurrentAdmin() admin: AdminAuth, @Param('id') id: string) {
    return { success: true, message: 'Invitation withdrawn', data: await this.team.revokeInvitation(actorOf(admin), id) };
  }

  @Patch('members/:id')
  @Audit('member.update', { target: 'member' })
  @Contract({
    summary: "Change a member's role or name, or disable or enable them",
    description: "Disabling ends the member's sessions at once on every server. 409 when it would leave no enabled owner; 403 when an admin changes an owner or makes one.",
    body: MemberUpdateSchema,
    data: MemberSchema,
    errors: [403, 404, 409],
  })
  async update(@CurrentAdmin() admin: AdminAuth, @Param('id') id: string, @Body() body: MemberUpdate) {
    return { success: true, message: 'Member updated', data: await this.team.change(actorOf(admin), id, body) };
  }

  @Delete('members/:id')
  @HttpCode(200)
  @Audit('member.remove', { target: 'member' })
  @Contract({
    summary: 'Remove a member: their sessions end at once on every server',
    description: '409 for the last enabled owner; 403 when an admin removes an owner.',
    data: MemberSchema,
    errors: [403, 404, 409],
  })
  async remove(@CurrentAdmin() admin: AdminAuth, @Param('id') id: string) {
    return { success: true, message: 'Member removed', data: await this.team.remove(actorOf(admin), id) };
  }

  @Get('invitations/:token')
  @Public()
  @Contract({ summary: 'What an invitation link offers: the email and role (no session needed)', data: InvitationPreviewSchema, errors: [404, 410] })
  async preview(@Param('token') token: string) {
    return { success: true, data: await this.team.preview(token) };
  }

  @Post('invitations/:token/accept')
  @Public()
  @HttpCode(200)
  @Audit('member.join', { target: 'member', param: 'memberId', idFrom: (reply) => reply.user?.id, actorFromReply: true })
  @Contract({
    summary: 'Accept an invitation: choose a name and a password (or none, to sign in with emailed codes)',
    description: 'Creates the member with the invited role; the link is then used up. Sign in afterwards. 404 for an unknown link; 410 for a used, withdrawn or expired one.',
    body: InvitationAcceptSchema,
    response: AcceptedInvitationSchema,
    errors: [404, 409, 410],
  })
  async accept(@Param('token') token: string, @Body() body: InvitationAccept) {
    const user = await this.team.accept(token, body);
    return { success: true, message: 'Welcome to the team. You can sign in now.', user, data: { user } };
  }
}
