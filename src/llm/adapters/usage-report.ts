/**
 * The one usage report that ends every successful stream: the vendor's counts when it sent both,
 * otherwise our estimate (see token-counter) for whatever is missing, flagged `reported: false`.
 */
import type { LlmMessage, LlmUsage } from '../llm.types';
import { countMessageTokens, countTokens } from '../token-counter';

export interface VendorCounts {
  promptTokens?: number;
  completionTokens?: number;
}

export function usageReport(vendor: VendorCounts, messages: readonly LlmMessage[], replyText: string): LlmUsage {
  const { promptTokens, completionTokens } = vendor;
  if (promptTokens !== undefined && completionTokens !== undefined) {
    return { promptTokens, completionTokens, reported: true };
  }
  return {
    promptTokens: promptTokens ?? countMessageTokens(messages),
    completionTokens: completionTokens ?? countTokens(replyText),
    reported: false,
  };
}
