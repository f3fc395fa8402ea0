/**
 * Chat rate limits far above what the suites of other features send: they chat from one address
 * on purpose. test/chat-limits.e2e-spec.ts tests the limits themselves (with the defaults).
 */
export const LIFTED_CHAT_LIMITS = Object.freeze({
  ipPerMinute: 100_000,
  ipPerHour: 1_000_000,
  visitorPerMinute: 100_000,
  visitorPerHour: 1_000_000,
  socketPerMinute: 100_000,
  keyPerMinute: 100_000,
  keyPerHour: 1_000_000,
  concurrentPerVisitor: 100,
  socketsPerIp: 100_000,
});
