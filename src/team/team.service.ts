/**
 * The team: members (with their role, status, second factor and last sign-in), invitations by
 * email, and accepting one. Every change of a member goes through AdminUsersService, the same
 * service the admin command line uses, so the rules hold whoever asks:
 *
 * - the last enabled owner cannot be removed, disabled or given another role (409);
 * - disabling or removing a member ends their sessions at once, on every server;
 * - an admin manages everyone but owners: they cannot invite an owner, make someone an owner, or
 *   change, disable or remove an owner (403).
 *
 * An invitation is a mail through the outbox (written in the same transaction as the invitation,
 * so neither exists without the other) holding a single-use link valid INVITATION_TTL_HOURS. Only
 * the SHA-256 of the link's token is stored. A new invitation to the same address replaces the
 * one still pending; accepting creates the member in one transaction with marking the invitation
 * used (a conditional UPDATE), so a link clicked twice at once makes one member.
 */
import { Inject, Injectable, Optional } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { DataSource, In, IsNull, Repository } from 'typeorm';
import { AdminEventsService } from '../admin-events/admin-events.service';
import { auditSecret } from '../audit/audit-diff';
import { AuditTargets, type TargetSnapshot } from '../audit/audit-targets';
import { AdminUser } from '../auth/admin-user.entity';
import { AdminUsersService } from '../auth/admin-users.service';
import { Clock } from '../common/clock';
import { publicUser, type PublicUser } from '../auth/auth.service';
import { SecondFactor } from '../auth/second-factor/second-factor.entity';
import { SignInEvent } from '../auth/sign-in-event.entity';
import { AppError } from '../common/app-error';
import { APP_CONFIG, AppConfig, normalizeEmail } from '../config/app-config';
import { writeTransaction } from '../database/write-queue';
import { MailOutboxService } from '../mail/mail-outbox.service';
import { ROLE_LABELS, type Role } from '../shared/contracts/roles';
import {
  INVITATION_TTL_HOURS,
  type Invitation,
  type InvitationAccept,
  type InvitationPreview,
  type InvitationStatus,
  type Member,
  type MemberUpdate,
  type Team,
} from '../shared/contracts/team';
import { invitationMail } from './invitation-mail';
import { TeamInvitation } from './team-invitation.entity';

export const INVITATION_TTL_MS = INVITATION_TTL_HOURS * 3_600_000;
const TOKEN_BYTES = 32;

export const TEAM_MESSAGES = {
  ownersOnly: 'Only an owner can invite, change or remove an owner, or make someone an owner.',
  alreadyMember: (email: string) => `${email} is already a member of the team.`,
  memberNotFound: 'No such member.',
  invitationNotFound: 'No such invitation is waiting to be accepted.',
  linkUnknown: 'This invitation link is not valid. Ask whoever invited you to send a new one.',
  linkUsed: 'This invitation link was already used. Sign in with your email instead.',
  linkRevoked: 'This invitation was withdrawn or replaced by a newer one. Use the link in the newest invitation mail.',
  linkExpired: `This invitation link has expired (links work for ${INVITATION_TTL_HOURS} hours). Ask whoever invited you to send a new one.`,
} as const;

export interface Actor {
  id: string;
  role: Role;
  name: string;
  email: string;
}

function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

const iso = (ms: number) => new Date(ms).toISOString();

/** A token from a link: base64url of 32 bytes. Anything else cannot be one (and is not looked up). */
function plausibleToken(token: string): boolean {
  return /^[A-Za-z0-9_-]{43}$/.test(token);
}

@Injectable()
export class TeamService {
  constructor(
    @Inject(DataSource) private readonly dataSource: DataSource,
    @InjectRepository(TeamInvitation) private readonly invitations: Repository<TeamInvitation>,
    private readonly users: AdminUsersService,
    private readonly outbox: MailOutboxService,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Optional() private readonly events?: AdminEventsService,
    @Optional() auditTargets?: AuditTargets,
  ) {
    auditTargets?.register('member', { snapshot: (id) => this.memberSnapshot(id) });
    auditTargets?.register('invitation', { snapshot: (id) => this.invitationSnapshot(id) });
  }

  async team(): Promise<Team> {
    const [users, pending] = await Promise.all([
      this.users.list(),
      this.invitations.find({ where: { acceptedAt: IsNull(), revokedAt: IsNull() }, order: { createdAt: 'DESC' } }),
    ]);
    const ids = users.map((u) => u.id);
    const [factors, lastSignIns] = await Promise.all([this.twoFactorSet(ids), this.lastSignIns(ids)]);
    const now = this.clock.now();
    const inviters = new Map(users.map((u) => [u.id, u]));
    return {
      members: users.map((u) => this.member(u, factors.has(u.id), lastSignIns.get(u.id) ?? null)),
      invitations: pending.filter((i) => i.expiresAt > now).map((i) => this.invitation(i, inviters.get(i.invitedBy ?? ''))),
    };
  }

  /** Sends an invitation mail; answers the invitation (never its link). */
  async invite(actor: Actor, input: { email: string; role: Role }, origin: string): Promise<Invitation> {
    const email = normalizeEmail(input.email);
    if (input.role === 'owner' && actor.role !== 'owner') throw new AppError('forbidden', TEAM_MESSAGES.ownersOnly);
    if (await this.users.findByEmail(email)) throw new AppError('conflict', TEAM_MESSAGES.alreadyMember(email));
    const token = randomBytes(TOKEN_BYTES).toString('base64url');
    const now = this.clock.now();
    const row: TeamInvitation = {
      id: randomUUID(),
      email,
      role: input.role,
      tokenHash: hashToken(token),
      invitedBy: actor.id,
      createdAt: now,
      expiresAt: now + INVITATION_TTL_MS,
      acceptedAt: null,
      acceptedBy: null,
      revokedAt: null,
    };
    const link = `${this.config.publicUrl ?? origin}/admin/invitation/${token}`;
    const mailId = await writeTransaction(this.dataSource, async (manager) => {
      if (await manager.existsBy(AdminUser, { email })) throw new AppError('conflict', TEAM_MESSAGES.alreadyMember(email));
      // The newest invitation to an address is the one that counts.
      await manager.update(TeamInvitation, { email, acceptedAt: IsNull(), revokedAt: IsNull() }, { revokedAt: now });
      await manager.insert(TeamInvitation, row);
      const mail = invitationMail(email, link, input.role, actor.name || actor.email, INVITATION_TTL_HOURS);
      return this.outbox.add(manager, mail, { kind: 'invitation', expiresAt: row.expiresAt, supersedePending: true });
    });
    await this.outbox.dispatch(mailId);
    this.changed();
    return this.invitation(row, actor);
  }

  /** Withdraws a pending invitation: its link stops working. */
  async revokeInvitation(actor: Actor, id: string): Promise<Invitation> {
    const found = await this.invitations.findOneBy({ id, acceptedAt: IsNull(), revokedAt: IsNull() });
    if (!found || found.expiresAt <= this.clock.now()) throw new AppError('not_found', TEAM_MESSAGES.invitationNotFound);
    if (found.role === 'owner' && actor.role !== 'owner') throw new AppError('forbidden', TEAM_MESSAGES.ownersOnly);
    const revokedAt = this.clock.now();
    const result = await writeTransaction(this.dataSource, (manager) =>
      manager.createQueryBuilder().update(TeamInvitation).set({ revokedAt }).where('id = :id AND accepted_at IS NULL AND revoked_at IS NULL', { id }).execute(),
    );
    if (!result.affected) throw new AppError('not_found', TEAM_MESSAGES.invitationNotFound);
    this.changed();
    return this.invitation({ ...found, revokedAt }, undefined);
  }

  /** What the acceptance page shows: 404 for a link that never was, 410 for a used, withdrawn or expired one. */
  async preview(token: string): Promise<InvitationPreview> {
    const found = await this.usable(token);
    const inviter = found.invitedBy ? await this.users.findById(found.invitedBy) : null;
    return { email: found.email, role: found.role, invitedBy: inviter ? inviter.name || inviter.email : null, expiresAt: iso(found.expiresAt) };
  }

  /** Creates the member the invitation names, with the name and (optional) password given; the link is then used up. */
  async accept(token: string, input: InvitationAccept): Promise<PublicUser> {
    const found = await this.usable(token);
    const user = await this.users.newMember({ email: found.email, name: input.name, password: input.password, otpLogin: true, role: found.role });
    const now = this.clock.now();
    await writeTransaction(this.dataSource, async (manager) => {
      const claimed = await manager
        .createQueryBuilder()
        .update(TeamInvitation)
        .set({ acceptedAt: now, acceptedBy: user.id })
        .where('id = :id AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > :now', { id: found.id, now })
        .execute();
      if (!claimed.affected) throw new AppError('gone', TEAM_MESSAGES.linkUsed);
      await this.users.insertIn(manager, user);
    });
    this.changed(user.id);
    return publicUser(user);
  }

  /** Changes a member's role, name or enabled state (their sessions end when disabled). */
  async change(actor: Actor, id: string, change: MemberUpdate): Promise<Member> {
    const target = await this.users.findById(id);
    if (!target) throw new AppError('not_found', TEAM_MESSAGES.memberNotFound);
    if (actor.role !== 'owner' && (target.role === 'owner' || change.role === 'owner')) throw new AppError('forbidden', TEAM_MESSAGES.ownersOnly);
    const { after } = await this.users.change(id, { role: change.role, disabled: change.disabled, name: change.name });
    this.changed(id);
    return this.describe(after);
  }

  /** Removes a member: their sessions end at once on every server. */
  async remove(actor: Actor, id: string): Promise<Member> {
    const target = await this.users.findById(id);
    if (!target) throw new AppError('not_found', TEAM_MESSAGES.memberNotFound);
    if (actor.role !== 'owner' && target.role === 'owner') throw new AppError('forbidden', TEAM_MESSAGES.ownersOnly);
    const described = await this.describe(target);
    await this.users.removeById(id);
    this.changed(id);
    return described;
  }

  /** The invitation behind a link, if it can still be accepted; otherwise 404 or 410 saying why not. */
  private async usable(token: string): Promise<TeamInvitation> {
    const found = plausibleToken(token) ? await this.invitations.findOneBy({ tokenHash: hashToken(token) }) : null;
    if (!found) throw new AppError('not_found', TEAM_MESSAGES.linkUnknown);
    if (found.acceptedAt !== null) throw new AppError('gone', TEAM_MESSAGES.linkUsed);
    if (found.revokedAt !== null) throw new AppError('gone', TEAM_MESSAGES.linkRevoked);
    if (found.expiresAt <= this.clock.now()) throw new AppError('gone', TEAM_MESSAGES.linkExpired);
    return found;
  }

  private async describe(user: AdminUser): Promise<Member> {
    const [factors, lastSignIns] = await Promise.all([this.twoFactorSet([user.id]), this.lastSignIns([user.id])]);
    return this.member(user, factors.has(user.id), lastSignIns.get(user.id) ?? null);
  }

  private member(user: AdminUser, twoFactor: boolean, lastSignInAt: number | null): Member {
    return {
      id: user.id,
      email: user.email,
      name: user.name,
      role: user.role,
      status: user.disabledAt === null ? 'active' : 'disabled',
      twoFactor,
      passwordLogin: user.passwordLogin && user.passwordHash !== null,
      codeLogin: user.otpLogin,
      lastSignInAt: lastSignInAt === null ? null : iso(lastSignInAt),
      createdAt: iso(user.createdAt),
    };
  }

  private invitation(row: TeamInvitation, inviter: Pick<AdminUser, 'name' | 'email'> | undefined): Invitation {
    return {
      id: row.id,
      email: row.email,
      role: row.role,
      status: invitationStatus(row, this.clock.now()),
      invitedBy: inviter ? { name: inviter.name, email: inviter.email } : null,
      createdAt: iso(row.createdAt),
      expiresAt: iso(row.expiresAt),
    };
  }

  private async twoFactorSet(ids: string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await this.dataSource.getRepository(SecondFactor).find({ select: { userId: true, confirmedAt: true }, where: { userId: In(ids) } });
    return new Set(rows.filter((r) => r.confirmedAt !== null).map((r) => r.userId));
  }

  /** Each member's last complete sign-in (a password or code without a second factor, or the second factor). */
  private async lastSignIns(ids: string[]): Promise<Map<string, number>> {
    if (ids.length === 0) return new Map();
    const rows = await this.dataSource
      .getRepository(SignInEvent)
      .createQueryBuilder('e')
      .select('e.user_id', 'userId')
      .addSelect('MAX(e.created_at)', 'at')
      .where('e.user_id IN (:...ids) AND e.outcome = :success', { ids, success: 'success' })
      .groupBy('e.user_id')
      .getRawMany<{ userId: string; at: string | number }>();
    return new Map(rows.map((r) => [r.userId, Number(r.at)]));
  }

  private async memberSnapshot(id: string): Promise<TargetSnapshot | null> {
    const user = await this.users.findById(id);
    if (!user) return null;
    const factors = await this.twoFactorSet([id]);
    return {
      title: user.name ? `${user.name} <${user.email}>` : user.email,
      fields: {
        email: user.email,
        name: user.name,
        role: user.role,
        disabled: user.disabledAt !== null,
        twoFactor: factors.has(id),
        password: auditSecret(user.passwordHash),
        passwordLogin: user.passwordLogin,
        codeLogin: user.otpLogin,
      },
    };
  }

  private async invitationSnapshot(id: string): Promise<TargetSnapshot | null> {
    const row = await this.invitations.findOneBy({ id });
    if (!row) return null;
    return { title: `${row.email} (${ROLE_LABELS[row.role]})`, fields: { email: row.email, role: row.role, status: invitationStatus(row, this.clock.now()), expiresAt: iso(row.expiresAt) } };
  }

  private changed(memberId?: string): void {
    this.events?.emit('team:changed', memberId ? { memberId } : {});
  }
}

function invitationStatus(row: TeamInvitation, now: number): InvitationStatus {
  if (row.acceptedAt !== null) return 'accepted';
  if (row.revokedAt !== null) return 'revoked';
  return row.expiresAt <= now ? 'expired' : 'pending';
}
