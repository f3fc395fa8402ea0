import { Column, Entity, PrimaryColumn } from 'typeorm';
import { EpochMsColumn, FloatColumn } from '../database/columns';
import type { ProviderId } from '../shared/catalog/providers';
import type { AgentVerticalId } from '../shared/catalog/verticals';

/** An agent configuration. The API key is stored only encrypted (see secret-box.ts). */
@Entity('agents')
export class Agent {
  /** Slug, e.g. `hr-agent`; it never changes (it is also the key's associated data). */
  @PrimaryColumn({ name: 'agent_id', type: 'varchar', length: 64 })
  agentId: string;

  @Column({ name: 'agent_name', type: 'varchar', length: 100 })
  agentName: string;

  @Column({ type: 'varchar', length: 32 })
  vertical: AgentVerticalId;

  @Column({ type: 'boolean' })
  enabled: boolean;

  @Column({ name: 'system_prompt', type: 'text' })
  systemPrompt: string;

  /** Upstream inactivity limit for one reply (ms). */
  @Column({ name: 'timeout_ms', type: 'integer' })
  timeoutMs: number;

  @Column({ type: 'varchar', length: 32 })
  provider: ProviderId;

  @Column({ type: 'varchar', length: 200 })
  model: string;

  /** `v1:<base64>` (AES-256-GCM), or null when the agent has no key. */
  @Column({ name: 'api_key_cipher', type: 'text', nullable: true })
  apiKeyCipher: string | null;

  /** 0..1; null: the global default response temperature. */
  @FloatColumn({ nullable: true })
  temperature: number | null;

  @Column({ name: 'max_tokens', type: 'integer' })
  maxTokens: number;

  /** Azure resource endpoint. */
  @Column({ type: 'varchar', length: 500, nullable: true })
  endpoint: string | null;

  /** OpenAI-compatible server address, or an override of a vendor's base URL. */
  @Column({ name: 'base_url', type: 'varchar', length: 500, nullable: true })
  baseUrl: string | null;

  @Column({ name: 'api_version', type: 'varchar', length: 40, nullable: true })
  apiVersion: string | null;

  /** List order (seeded agents first, in tab order; new ones after). */
  @Column({ type: 'integer' })
  position: number;

  @EpochMsColumn({ name: 'created_at' })
  createdAt: number;

  @EpochMsColumn({ name: 'updated_at' })
  updatedAt: number;
}
