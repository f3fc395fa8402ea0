import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AgentsModule } from '../agents/agents.module';
import { AuthModule } from '../auth/auth.module';
import { ApiKey } from './api-key.entity';
import { ApiKeysController } from './api-keys.controller';
import { ApiKeysService } from './api-keys.service';
import { ApiKeyGuard } from './require-api-key';

/**
 * API keys of the machine channels: the console's keys API, and the guard every machine channel
 * uses (`@RequireApiKey(scope)`, require-api-key.ts). Imports the agents' module for the global
 * setting requireApiKey, auth for its clock; imports nothing of the channels themselves, which import this.
 */
@Module({
  imports: [TypeOrmModule.forFeature([ApiKey]), AgentsModule, AuthModule],
  controllers: [ApiKeysController],
  providers: [ApiKeysService, ApiKeyGuard],
  exports: [ApiKeysService, ApiKeyGuard],
})
export class ApiKeysModule {}
