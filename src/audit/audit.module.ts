/**
 * The audit log (append-only): AuditService (the one writer, reads, export, retention purge),
 * AuditTargets (features register before/after snapshot hooks), the interceptor that records every
 * state-changing admin request, and the audit API. Global, so any feature can register a target
 * or record an event without importing this module; it imports no feature module itself.
 */
import { Global, Module } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Setting } from '../database/setting.entity';
import { AuditEntryRow } from './audit-entry.entity';
import { AuditTargets } from './audit-targets';
import { AuditController } from './audit.controller';
import { AuditInterceptor } from './audit.interceptor';
import { AuditService } from './audit.service';

@Global()
@Module({
  imports: [TypeOrmModule.forFeature([AuditEntryRow, Setting])],
  controllers: [AuditController],
  providers: [AuditTargets, AuditService, { provide: APP_INTERCEPTOR, useClass: AuditInterceptor }],
  exports: [AuditTargets, AuditService],
})
export class AuditModule {}
