import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { MailModule } from '../mail/mail.module';
import { AdminApiGate } from './admin-api-gate';
import { AdminSession } from './admin-session.entity';
import { AdminUser } from './admin-user.entity';
import { AdminBootstrapService } from './admin-bootstrap.service';
import { AuthCleanupService } from './auth-cleanup.service';
import { AdminUsersService } from './admin-users.service';
import { AuthController } from './auth.controller';
import { AuthGuard } from './auth.guard';
import { AuthService } from './auth.service';
import { Clock } from './clock';
import { OneTimeCode } from './one-time-code.entity';
import { OtpService } from './otp.service';
import { RequestAuthenticator } from './request-authenticator';
import { SessionEvents } from './session-events';
import { SessionService } from './session.service';
import { SignInAuditService } from './sign-in-audit.service';
import { SignInEvent } from './sign-in-event.entity';

/**
 * Admin sign-in: users, sessions, one-time codes, the auth API, and what the global guard
 * (AuthGuard, registered as APP_GUARD by AppModule) and the admin socket namespace need.
 * Needs the global ServerSecretModule, RateLimitModule and JobsModule.
 */
@Module({
  imports: [TypeOrmModule.forFeature([AdminUser, AdminSession, OneTimeCode, SignInEvent]), MailModule],
  controllers: [AuthController],
  providers: [
    Clock,
    SessionEvents,
    AdminUsersService,
    SessionService,
    OtpService,
    SignInAuditService,
    AuthService,
    RequestAuthenticator,
    AuthGuard,
    AdminApiGate,
    AdminBootstrapService,
    AuthCleanupService,
  ],
  exports: [Clock, SessionEvents, SessionService, AdminUsersService, RequestAuthenticator, AuthGuard, AdminApiGate],
})
export class AuthModule {}
