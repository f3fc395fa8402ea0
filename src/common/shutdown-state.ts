import { Injectable, OnModuleDestroy } from '@nestjs/common';

/** The signals on which the server drains and stops (main.ts / app.enableShutdownHooks). */
export const SHUTDOWN_SIGNALS = ['SIGTERM', 'SIGINT'] as const;

/**
 * Whether this server is shutting down. It flips at the first moment: synchronously in the
 * signal handler (createApp adds one before Nest's own), or when `app.close()` is called. From
 * then on `/health` answers 503 (so a load balancer stops sending traffic while running replies
 * finish) and new chats are refused with `server_restarting`.
 */
@Injectable()
export class ShutdownState implements OnModuleDestroy {
  private since: number | undefined;
  private readonly onSignal = () => this.begin();

  get draining(): boolean {
    return this.since !== undefined;
  }

  begin(): void {
    this.since ??= Date.now();
  }

  /** Listens for the shutdown signals; `release` (or the module's destruction) stops listening. */
  listen(): void {
    for (const signal of SHUTDOWN_SIGNALS) process.on(signal, this.onSignal);
  }

  onModuleDestroy(): void {
    this.begin();
    for (const signal of SHUTDOWN_SIGNALS) process.removeListener(signal, this.onSignal);
  }
}
