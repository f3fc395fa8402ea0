/**
 * In-process notifications about sessions, so the /admin socket namespace can act on them
 * without the auth feature depending on it: a revoked session (logout, admin removed) drops its
 * sockets; a rotated one (refresh) hands its sockets over to the new session.
 */
import { Injectable, Logger } from '@nestjs/common';

export type SessionEvent =
  | { type: 'revoked'; sessionId: string }
  | { type: 'user-removed'; userId: string }
  /** Every session of the admin was ended (their second factor was reset). */
  | { type: 'user-sessions-ended'; userId: string }
  | { type: 'rotated'; fromSessionId: string; toSessionId: string };

@Injectable()
export class SessionEvents {
  private readonly logger = new Logger('SessionEvents');
  private readonly listeners = new Set<(event: SessionEvent) => void | Promise<void>>();

  subscribe(listener: (event: SessionEvent) => void | Promise<void>): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  publish(event: SessionEvent): void {
    for (const listener of this.listeners) {
      Promise.resolve()
        .then(() => listener(event))
        .catch((error) => this.logger.warn(`Session event ${event.type} listener failed: ${(error as Error).message}`));
    }
  }
}
