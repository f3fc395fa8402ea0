import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { AnthropicAdapter } from './adapters/anthropic.adapter';
import { AzureAdapter } from './adapters/azure.adapter';
import { LocalResponderAdapter } from './adapters/local-responder.adapter';
import { OpenAiCompatibleAdapter } from './adapters/openai-compatible.adapter';
import { OpenAiAdapter } from './adapters/openai.adapter';
import type { LlmProvider, ProviderConnection } from './llm.types';

/**
 * Hands out one provider adapter per distinct connection (provider, key, address), so SDK clients
 * and their HTTP keep-alive pools are reused across chats instead of rebuilt per message.
 */
@Injectable()
export class LlmService {
  private readonly adapters = new Map<string, LlmProvider>();

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  providerFor(connection: ProviderConnection): LlmProvider {
    const key = JSON.stringify([
      connection.provider,
      connection.apiKey ?? '',
      connection.baseUrl ?? '',
      connection.endpoint ?? '',
      connection.apiVersion ?? '',
      connection.timeoutMs ?? 0,
    ]);
    let adapter = this.adapters.get(key);
    if (!adapter) {
      adapter = this.create(connection);
      if (this.adapters.size > 200) this.adapters.clear();
      this.adapters.set(key, adapter);
    }
    return adapter;
  }

  private create(connection: ProviderConnection): LlmProvider {
    switch (connection.provider) {
      case 'openai':
        return new OpenAiAdapter(connection);
      case 'anthropic':
        return new AnthropicAdapter(connection);
      case 'azure':
        return new AzureAdapter(connection);
      case 'openai-compatible':
        return new OpenAiCompatibleAdapter(connection);
      case 'local':
        return new LocalResponderAdapter(this.config.localResponderDelayMs);
    }
  }
}
