import { Injectable, Logger } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { AgentRegistryService } from '../agents/agent-registry.service';

interface AgentLike {
  agentId: string;
  agentName: string;
}

/**
 * Agent names for the analytics rows, read from the agent registry wherever it is provided
 * (looked up across modules, so analytics does not own or duplicate it). An agent that is no
 * longer configured keeps its history under its id.
 */
@Injectable()
export class AgentDirectory {
  private readonly logger = new Logger('AgentDirectory');

  constructor(private readonly moduleRef: ModuleRef) {}

  async names(): Promise<Map<string, string>> {
    const names = new Map<string, string>();
    try {
      const registry = this.moduleRef.get(AgentRegistryService, { strict: false }) as { list(): AgentLike[] | Promise<AgentLike[]> };
      for (const agent of await registry.list()) names.set(agent.agentId, agent.agentName);
    } catch (error) {
      this.logger.warn(`Agent names unavailable; showing agent ids: ${(error as Error).message}`);
    }
    return names;
  }
}
