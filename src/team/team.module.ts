import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AdminEventsModule } from '../admin-events/admin-events.module';
import { AuthModule } from '../auth/auth.module';
import { MailModule } from '../mail/mail.module';
import { TeamInvitation } from './team-invitation.entity';
import { TeamController } from './team.controller';
import { TeamService } from './team.service';

/** Members and invitations (the Team tab's API). Member changes go through AuthModule's AdminUsersService. */
@Module({
  imports: [TypeOrmModule.forFeature([TeamInvitation]), AuthModule, MailModule, AdminEventsModule],
  controllers: [TeamController],
  providers: [TeamService],
  exports: [TeamService],
})
export class TeamModule {}
