import type { ReplyData } from '@shared/contracts/chat';

/** A finished reply as the server sends it in chat:done / /interact `data`. */
export function makeReplyData(overrides: Partial<ReplyData> = {}): ReplyData {
  return {
    response: 'Your order ships today.',
    executionTime: 1234,
    confidence: 0.72,
    vertical: 'customer-service',
    agentsInvolved: ['customer-service-agent'],
    a2aCompliant: true,
    optimization: { passages: 2, coalescedFrames: 3 },
    sources: [
      { id: 'k1', title: 'Shipping times and costs', score: 3.2 },
      { id: 'k2', title: 'Tracking your order', score: 1.1 },
    ],
    usage: { promptTokens: 100, completionTokens: 20, totalTokens: 120, costUsd: 0, provider: 'local', model: 'local' },
    ...overrides,
  };
}
