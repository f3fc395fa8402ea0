/**
 * One embeddings call through the official `openai` SDK (OpenAI, Azure OpenAI, and the servers
 * that speak OpenAI's embeddings API: Ollama, vLLM, llama.cpp server, LM Studio), and the vector
 * helpers of hybrid retrieval: vectors are L2-normalised float32, stored as little-endian bytes,
 * compared by dot product (= cosine).
 */
import type OpenAI from 'openai';
import type { EmbeddingProviderId } from '../shared/catalog/providers';
import { createAzureClient, createCompatibleClient, createOpenAiClient } from '../llm/adapters/sdk-clients';
import { countTokens } from '../llm/token-counter';

export interface EmbeddingConnection {
  provider: EmbeddingProviderId;
  model: string;
  apiKey?: string;
  baseUrl?: string;
  endpoint?: string;
  apiVersion?: string;
}

export interface EmbeddingResult {
  vectors: Float32Array[];
  /** Input tokens as the provider reported them (counted here when it did not). */
  tokens: number;
}

const clients = new Map<string, OpenAI>();

function clientFor(conn: EmbeddingConnection): OpenAI {
  const key = JSON.stringify([conn.provider, conn.apiKey ?? '', conn.baseUrl ?? '', conn.endpoint ?? '', conn.apiVersion ?? '']);
  let client = clients.get(key);
  if (!client) {
    const connection = { provider: conn.provider, apiKey: conn.apiKey, baseUrl: conn.baseUrl, endpoint: conn.endpoint, apiVersion: conn.apiVersion };
    client = conn.provider === 'azure' ? createAzureClient(connection) : conn.provider === 'openai-compatible' ? createCompatibleClient(connection) : createOpenAiClient(connection);
    if (clients.size > 20) clients.clear();
    clients.set(key, client);
  }
  return client;
}

/** Embeds `texts` (one request), normalised; rejects on any failure or when `signal` aborts. */
export async function embedTexts(conn: EmbeddingConnection, texts: string[], signal: AbortSignal): Promise<EmbeddingResult> {
  const response = await clientFor(conn).embeddings.create({ model: conn.model, input: texts }, { signal });
  const data = [...response.data].sort((a, b) => a.index - b.index);
  if (data.length !== texts.length) throw new Error(`The embeddings endpoint returned ${data.length} vectors for ${texts.length} texts`);
  const vectors = data.map((d) => normalise(Float32Array.from(d.embedding as number[])));
  const tokens = response.usage?.prompt_tokens ?? texts.reduce((sum, t) => sum + countTokens(t), 0);
  return { vectors, tokens };
}

/** Scales `v` to length 1 in place (a zero vector stays zero). */
export function normalise(v: Float32Array): Float32Array {
  let sum = 0;
  for (let i = 0; i < v.length; i++) sum += v[i] * v[i];
  const norm = Math.sqrt(sum);
  if (norm > 0) for (let i = 0; i < v.length; i++) v[i] /= norm;
  return v;
}

/** Float32 little-endian bytes of `v`. */
export function vectorToBytes(v: Float32Array): Buffer {
  const out = Buffer.alloc(v.length * 4);
  for (let i = 0; i < v.length; i++) out.writeFloatLE(v[i], i * 4);
  return out;
}

/** Reads `dims` float32 values written by vectorToBytes into `target` at `offset`. */
export function bytesInto(bytes: Uint8Array, dims: number, target: Float32Array, offset: number): void {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let i = 0; i < dims; i++) target[offset + i] = view.getFloat32(i * 4, true);
}
