import { Module } from '@nestjs/common';
import { SecretBox } from '../agents/secret-box';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { Setting } from '../database/setting.entity';
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
import { Clock } from '../common/clock';
import { OneTimeCode } from './one-time-code.entity';
import { OtpService } from './otp.service';
import { RequestAuthenticator } from './request-authenticator';
import { SessionEvents } from './session-events';
import { SessionService } from './session.service';
import { SignInAuditService } from './sign-in-audit.service';
import { SignInEvent } from './sign-in-event.entity';
import { AccountSecurityService } from './second-factor/account-security.service';
import { RecoveryCode } from './second-factor/recovery-code.entity';
import { SecondFactorController } from './second-factor/second-factor.controller';
import { SecondFactor } from './second-factor/second-factor.entity';
import { SecondFactorService, TOTP_SECRET_BOX } from './second-factor/second-factor.service';
import { SecurityPolicyService } from './second-factor/security-policy.service';
import { SessionsController } from './sessions.controller';

/**
 * Admin sign-in: users, sessions, one-time codes, the second factor (TOTP and recovery codes), the
 * auth API, and what the global guard (AuthGuard, registered as APP_GUARD by AppModule) and the
 * admin socket namespace need. Needs the global ServerSecretModule, RateLimitModule and
 * JobsModule; imports no feature module (the agents' module depends on this one).
 */
@Module({
  imports: [TypeOrmModule.forFeature([AdminUser, AdminSession, OneTimeCode, SignInEvent, SecondFactor, RecoveryCode, Setting]), MailModule],
  controllers: [AuthController, SecondFactorController, SessionsController],
  providers: [
    { provide: TOTP_SECRET_BOX, useFactory: (config: AppConfig) => new SecretBox(config, 'admin-totp'), inject: [APP_CONFIG] },
    SecondFactorService,
    SecurityPolicyService,
    AccountSecurityService,
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
