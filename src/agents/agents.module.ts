import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AdminEventsModule } from '../admin-events/admin-events.module';
import { Setting } from '../database/setting.entity';
import { Agent } from './agent.entity';
import { AgentConfigService } from './agent-config.service';
import { AgentRegistryService } from './agent-registry.service';
import { ConfigChangeBus } from './config-change-bus';
import { ConfigController } from './config.controller';
import { PublicSettingsController } from './public-settings.controller';
import { SecretBox } from './secret-box';

/**
 * Agent configuration and global settings: stored in the database (keys encrypted), cached for
 * the chat pipeline (AgentRegistryService), changed through the Config API, and kept in step on
 * every server through ConfigChangeBus.
 */
@Module({
  imports: [TypeOrmModule.forFeature([Agent, Setting]), AdminEventsModule],
  controllers: [ConfigController, PublicSettingsController],
  providers: [SecretBox, ConfigChangeBus, AgentRegistryService, AgentConfigService],
  exports: [AgentRegistryService, SecretBox, ConfigChangeBus],
})
export class AgentsModule {}
