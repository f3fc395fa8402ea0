/**
 * Builds the vendor SDK clients from a `ProviderConnection`, the one place that knows each SDK's
 * constructor options.
 *
 * Every client is built with retries off (the pipeline decides what to do with a failure and has
 * its own timers), SDK logging off (failures surface as LlmError and are logged by the pipeline),
 * and explicit base URLs, so the SDKs do not pick addresses up from the environment.
 *
 * Base URLs are forgiving: an OpenAI-style address without a path gets `/v1`
 * (`http://localhost:11434` -> `http://localhost:11434/v1`); an Anthropic address ending in `/v1`
 * loses it (the SDK adds it); an Azure endpoint ending in `/openai` loses it (the SDK adds it).
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI, { AzureOpenAI } from 'openai';
import { LlmError, type ProviderConnection } from '../llm.types';
import { LLM_ERROR_MESSAGES } from './provider-errors';

export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';
export const ANTHROPIC_DEFAULT_BASE_URL = 'https://api.anthropic.com';
export const AZURE_DEFAULT_API_VERSION = '2024-10-21';
/** Upper bound on waiting for a provider's response headers when the connection names none. */
export const DEFAULT_TIMEOUT_MS = 60_000;
/** Sent as the bearer key to OpenAI-compatible servers that need none (Ollama, llama.cpp). */
export const NO_KEY_PLACEHOLDER = 'no-key';

export function createOpenAiClient(conn: ProviderConnection): OpenAI {
  return new OpenAI({
    apiKey: requireKey(conn),
    baseURL: conn.baseUrl ? openAiStyleBaseUrl(conn.baseUrl) : OPENAI_DEFAULT_BASE_URL,
    organization: null,
    project: null,
    ...commonOptions(conn),
  });
}

export function createCompatibleClient(conn: ProviderConnection): OpenAI {
  const address = conn.baseUrl ?? conn.endpoint;
  if (!address) throw new LlmError('unreachable', LLM_ERROR_MESSAGES.missingAddress);
  return new OpenAI({
    apiKey: conn.apiKey || NO_KEY_PLACEHOLDER,
    baseURL: openAiStyleBaseUrl(address),
    organization: null,
    project: null,
    ...commonOptions(conn),
  });
}

/** An Azure OpenAI client; the deployment is taken per request from the body's `model`. */
export function createAzureClient(conn: ProviderConnection): AzureOpenAI {
  const endpoint = conn.endpoint ?? conn.baseUrl;
  if (!endpoint) throw new LlmError('unreachable', LLM_ERROR_MESSAGES.missingAddress);
  return new AzureOpenAI({
    apiKey: requireKey(conn),
    endpoint: trimTrailing(endpoint, '/openai'),
    apiVersion: azureApiVersion(conn),
    ...commonOptions(conn),
  });
}

export function createAnthropicClient(conn: ProviderConnection): Anthropic {
  return new Anthropic({
    apiKey: requireKey(conn),
    baseURL: conn.baseUrl ? trimTrailing(conn.baseUrl, '/v1') : ANTHROPIC_DEFAULT_BASE_URL,
    ...commonOptions(conn),
  });
}

export function azureApiVersion(conn: ProviderConnection): string {
  return conn.apiVersion || AZURE_DEFAULT_API_VERSION;
}

/** `http://host:port` -> `http://host:port/v1`; an address with a path is kept as given. */
export function openAiStyleBaseUrl(address: string): string {
  const trimmed = address.replace(/\/+$/, '');
  try {
    const url = new URL(trimmed);
    return url.pathname === '/' || url.pathname === '' ? `${trimmed}/v1` : trimmed;
  } catch {
    return trimmed;
  }
}

function trimTrailing(address: string, suffix: string): string {
  const trimmed = address.replace(/\/+$/, '');
  return trimmed.endsWith(suffix) ? trimmed.slice(0, -suffix.length) : trimmed;
}

function requireKey(conn: ProviderConnection): string {
  if (!conn.apiKey) throw new LlmError('auth', LLM_ERROR_MESSAGES.missingKey);
  return conn.apiKey;
}

function commonOptions(conn: ProviderConnection): { maxRetries: 0; timeout: number; logLevel: 'off' } {
  return { maxRetries: 0, timeout: conn.timeoutMs ?? DEFAULT_TIMEOUT_MS, logLevel: 'off' };
}
