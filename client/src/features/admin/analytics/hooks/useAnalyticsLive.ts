import { connectAdminFeed, useLiveReload, type AdminFeed } from '../../../../lib/admin-feed';
import { ANALYTICS_QUERY_KEY } from './useAnalytics';

/** The part of a Socket.IO client socket the live feed uses (so tests can hand in their own). */
export type LiveFeed = AdminFeed;
export { connectAdminFeed };

const EVENTS = ['analytics:update'] as const;

/**
 * Reloads the analytics whenever the server pushes `analytics:update` (at most once a second
 * while traffic flows), and after a reconnect (updates may have been missed meanwhile).
 * Returns whether the feed is connected.
 */
export function useAnalyticsLive(connect: () => LiveFeed = connectAdminFeed): boolean {
  return useLiveReload(connect, EVENTS, ANALYTICS_QUERY_KEY);
}
