/**
 * Speech to text for the microphone where the browser has no speech recognition: the settings
 * (Configuration tab, "Speech to text"; GET|PUT /api/config/speech; the key encrypted at rest with
 * its own SecretBox purpose) and one transcription through the official `openai` SDK
 * (`audio.transcriptions.create`) against OpenAI, Azure OpenAI or any server with OpenAI's
 * /v1/audio/transcriptions. Each transcription is a usage event of kind 'speech' with its cost
 * (the recording's minutes at the model's list price).
 *
 * The settings are read from the `settings` table at each use (one row), so every server sees a
 * change at once.
 */
import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { toFile } from 'openai';
import type OpenAI from 'openai';
import { DataSource } from 'typeorm';
import { maskApiKey, SecretBox } from '../agents/secret-box';
import { UsageRecorderService } from '../analytics/usage-recorder.service';
import { auditSecret } from '../audit/audit-diff';
import { AuditTargets } from '../audit/audit-targets';
import { AppError } from '../common/app-error';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { portableSql } from '../database/sql';
import { queuedWrite } from '../database/write-queue';
import { toLlmError } from '../llm/adapters/provider-errors';
import { createAzureClient, createCompatibleClient, createOpenAiClient } from '../llm/adapters/sdk-clients';
import { speechCostUsd } from '../shared/catalog/providers';
import { VOICE_LIMITS, VOICE_MESSAGES, type SpeechSettings, type SpeechSettingsUpdateSchema, type Transcription, type VoiceAvailability } from '../shared/contracts/speech';
import type { AudioFile } from './audio-file';
import type { z } from 'zod';

/** The settings row (JSON; the key encrypted). */
export const SPEECH_SETTINGS_KEY = 'config.speech';
/** Longest one transcription may take. */
const TRANSCRIPTION_TIMEOUT_MS = 60_000;

interface StoredSettings extends Omit<SpeechSettings, 'apiKey' | 'keyUnreadable'> {
  apiKeyCipher: string | null;
}

const DEFAULT_SETTINGS: Readonly<StoredSettings> = Object.freeze({
  enabled: false,
  provider: 'openai',
  model: 'whisper-1',
  baseUrl: null,
  endpoint: null,
  apiVersion: null,
  apiKeyCipher: null,
});

/** Who asked, for the usage event. */
export interface TranscriptionCaller {
  requestId: string;
  widgetId?: string;
  language?: string;
}

@Injectable()
export class SpeechService {
  private readonly logger = new Logger('Speech');
  private readonly box: SecretBox;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly dataSource: DataSource,
    private readonly usage: UsageRecorderService,
    @Optional() auditTargets?: AuditTargets,
  ) {
    this.box = new SecretBox(config, 'speech-api-key');
    auditTargets?.register('speech', { snapshot: async () => ({ title: 'Speech to text settings', fields: this.auditFields(await this.stored()) }) });
  }

  /** The settings as the audit log compares them: the key only as a fingerprint of what it decrypts to. */
  private auditFields(s: StoredSettings): Record<string, unknown> {
    const { apiKeyCipher, ...rest } = s;
    let key = apiKeyCipher;
    try {
      key = apiKeyCipher && this.box.decrypt(apiKeyCipher, SPEECH_SETTINGS_KEY);
    } catch {
      // A damaged value is compared as stored.
    }
    return { ...rest, apiKey: auditSecret(key) };
  }

  private async stored(): Promise<StoredSettings> {
    const rows: { value: string }[] = await this.dataSource.query(portableSql(this.dataSource, 'SELECT value FROM settings WHERE key = $1'), [SPEECH_SETTINGS_KEY]);
    if (!rows[0]) return { ...DEFAULT_SETTINGS };
    try {
      const parsed = JSON.parse(rows[0].value) as Partial<StoredSettings>;
      return { ...DEFAULT_SETTINGS, ...(parsed && typeof parsed === 'object' ? parsed : {}) };
    } catch {
      this.logger.warn('The stored speech-to-text settings are not valid JSON: speech to text is off until they are saved again.');
      return { ...DEFAULT_SETTINGS };
    }
  }

  private viewOf(s: StoredSettings): SpeechSettings {
    const { apiKeyCipher, ...rest } = s;
    let apiKey: string | null = null;
    let keyUnreadable = false;
    if (apiKeyCipher) {
      try {
        apiKey = maskApiKey(this.box.decrypt(apiKeyCipher, SPEECH_SETTINGS_KEY));
      } catch {
        keyUnreadable = true;
      }
    }
    return { ...rest, apiKey, ...(keyUnreadable ? { keyUnreadable } : {}) };
  }

  async get(): Promise<SpeechSettings> {
    return this.viewOf(await this.stored());
  }

  async update(update: z.output<typeof SpeechSettingsUpdateSchema>): Promise<SpeechSettings> {
    const next: StoredSettings = await this.stored();
    for (const key of ['enabled', 'provider', 'model', 'baseUrl', 'endpoint', 'apiVersion'] as const) {
      if (update[key] !== undefined) (next as unknown as Record<string, unknown>)[key] = update[key];
    }
    if (update.apiKey === null) next.apiKeyCipher = null;
    else if (update.apiKey !== undefined) next.apiKeyCipher = this.box.encrypt(update.apiKey, SPEECH_SETTINGS_KEY);
    if (next.enabled) {
      if (next.provider === 'azure' && !(next.endpoint ?? next.baseUrl)) throw new AppError('validation_failed', 'Azure OpenAI needs its endpoint to transcribe speech.');
      if (next.provider === 'openai-compatible' && !(next.baseUrl ?? next.endpoint)) throw new AppError('validation_failed', "An OpenAI-compatible server needs its base URL to transcribe speech.");
    }
    await queuedWrite(this.dataSource, () =>
      this.dataSource.query(
        portableSql(
          this.dataSource,
          `INSERT INTO settings (key, value, updated_at) VALUES ($1, $2, $3)
           ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
        ),
        [SPEECH_SETTINGS_KEY, JSON.stringify(next), Date.now()],
      ),
    );
    return this.viewOf(next);
  }

  /** Usable: switched on, with a key where the provider needs one (and a readable one). */
  private usable(s: StoredSettings): boolean {
    if (!s.enabled) return false;
    if (s.provider === 'openai-compatible') return Boolean(s.baseUrl ?? s.endpoint);
    if (!s.apiKeyCipher) return false;
    if (s.provider === 'azure' && !(s.endpoint ?? s.baseUrl)) return false;
    try {
      this.box.decrypt(s.apiKeyCipher, SPEECH_SETTINGS_KEY);
      return true;
    } catch {
      return false;
    }
  }

  async availability(): Promise<VoiceAvailability> {
    return { transcription: this.usable(await this.stored()), maxSeconds: VOICE_LIMITS.maxSeconds, maxBytes: VOICE_LIMITS.maxBytes };
  }

  /** 503 when no provider is set; call before reading anything costly. */
  async assertAvailable(): Promise<void> {
    if (!this.usable(await this.stored())) throw new AppError('service_unavailable', VOICE_MESSAGES.notConfigured);
  }

  /**
   * Sends one checked recording to the provider and returns its text. A provider failure is a
   * 502 (503 when it rate limits), never a 500; it is a usage event too (status error, no cost).
   */
  async transcribe(bytes: Buffer, audio: AudioFile, caller: TranscriptionCaller): Promise<Transcription> {
    const s = await this.stored();
    if (!this.usable(s)) throw new AppError('service_unavailable', VOICE_MESSAGES.notConfigured);
    const apiKey = s.apiKeyCipher ? this.box.decrypt(s.apiKeyCipher, SPEECH_SETTINGS_KEY) : undefined;
    const connection = { provider: s.provider, apiKey, baseUrl: s.baseUrl ?? undefined, endpoint: s.endpoint ?? undefined, apiVersion: s.apiVersion ?? undefined, timeoutMs: TRANSCRIPTION_TIMEOUT_MS };
    const signal = AbortSignal.timeout(TRANSCRIPTION_TIMEOUT_MS);
    const started = performance.now();
    let text = '';
    let failure: { code: string; message: string; rateLimited: boolean } | undefined;
    try {
      const client: OpenAI = s.provider === 'azure' ? createAzureClient(connection) : s.provider === 'openai-compatible' ? createCompatibleClient(connection) : createOpenAiClient(connection);
      const file = await toFile(bytes, `recording.${audio.extension}`, { type: audio.mimeType });
      const result = await client.audio.transcriptions.create(
        { file, model: s.model, response_format: 'json', ...(caller.language ? { language: caller.language } : {}) },
        { signal },
      );
      text = typeof result === 'string' ? result : typeof (result as { text?: unknown }).text === 'string' ? (result as { text: string }).text : '';
    } catch (error) {
      const llm = toLlmError(error, signal);
      failure = { code: `speech_${llm.kind}`.slice(0, 40), message: llm.message, rateLimited: llm.kind === 'rate_limited' };
      this.logger.warn(`Transcription failed (${s.provider} ${s.model}): ${llm.message}`);
    }
    const seconds = audio.seconds ?? estimatedSeconds(bytes.length);
    await this.usage.record({
      createdAt: Date.now(),
      requestId: caller.requestId.slice(0, 100),
      agentId: 'speech-to-text',
      vertical: 'voice',
      provider: s.provider,
      model: s.model.slice(0, 120),
      channel: 'rest',
      kind: 'speech',
      status: failure ? 'error' : 'success',
      errorCode: failure?.code ?? null,
      errorMessage: failure?.message.slice(0, 500) ?? null,
      promptTokens: 0,
      completionTokens: 0,
      costUsd: failure ? 0 : speechCostUsd(s.provider, s.model, seconds),
      latencyMs: Math.round(performance.now() - started),
      ttftMs: null,
      language: caller.language ?? null,
      answered: null,
      widgetId: caller.widgetId ?? null,
    }).catch((error: unknown) => this.logger.warn(`Recording the transcription's usage failed: ${(error as Error).message}`));
    if (failure) {
      throw new AppError(failure.rateLimited ? 'provider_rate_limited' : 'provider_error', `Speech to text failed: ${failure.message}. Please try again or type your question.`);
    }
    return { text: text.trim(), seconds: audio.seconds };
  }
}

/** A length for billing when the file does not say (MP3, MP4, FLAC): its size at 128 kbit/s. */
function estimatedSeconds(bytes: number): number {
  return bytes / 16_000;
}
