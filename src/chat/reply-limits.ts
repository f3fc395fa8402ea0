/**
 * What stops a reply's provider call: the visitor, a shutdown, a takeover or a handoff (`stopped`),
 * the chat time limit counted from when the visitor asked, and the agent's inactivity limit.
 */
import type { StopCause } from './reply-failure';

export interface ReplyLimits {
  /** Aborted at the first stop; the provider call listens to it. */
  readonly signal: AbortSignal;
  /** Why the reply was stopped (the first cause), if it was. */
  readonly stopReason: StopCause | undefined;
  /** The provider sent something: the inactivity limit starts again. */
  touch(): void;
  /** The call is over: both timers are cleared. */
  clear(): void;
}

/**
 * Arms the limits of one provider call. `started` is performance.now() when the visitor asked
 * (a reply taken over counts from then too).
 */
export function armReplyLimits(stopped: Promise<StopCause>, chatTimeoutMs: number, agentTimeoutMs: number, started: number): ReplyLimits {
  const upstream = new AbortController();
  let stopReason: StopCause | undefined;
  const abort = (reason: StopCause) => {
    if (!stopReason) stopReason = reason;
    upstream.abort();
  };
  void stopped.then((reason) => abort(reason));
  const chatTimer = setTimeout(() => abort('chat_timeout'), Math.max(0, chatTimeoutMs - (performance.now() - started)));
  // The agent timeout is an inactivity limit: it restarts with every delta, so a long answer that
  // keeps streaming is not cut, but a provider that stops sending is.
  // refresh() re-arms the same timer (a new one per delta cost a clear and an allocation each).
  const agentTimer = setTimeout(() => abort('agent_timeout'), agentTimeoutMs);
  return {
    signal: upstream.signal,
    get stopReason() {
      return stopReason;
    },
    touch: () => void agentTimer.refresh(),
    clear: () => {
      clearTimeout(chatTimer);
      clearTimeout(agentTimer);
    },
  };
}
