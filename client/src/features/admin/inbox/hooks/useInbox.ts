import { useQuery } from '@tanstack/react-query';
import type { Inbox } from '@shared/contracts/handoff';
import { useEffect } from 'react';
import { connectAdminFeed, useLiveReload, type AdminFeed } from '../../../../lib/admin-feed';
import { inboxApi } from '../api/inbox-api';

/** Every inbox query lives under this key, so one `inbox:changed` reloads the lists and the open transcript. */
export const INBOX_QUERY = ['inbox'] as const;
const LIST_QUERY = [...INBOX_QUERY, 'list'] as const;

export function useInboxList(enabled = true) {
  return useQuery({ queryKey: LIST_QUERY, queryFn: ({ signal }) => inboxApi.list(signal), enabled });
}

export function useInboxConversation(id: string | null) {
  return useQuery({ queryKey: [...INBOX_QUERY, 'conversation', id], queryFn: ({ signal }) => inboxApi.conversation(id!, signal), enabled: id !== null });
}

/** Visitor messages not yet answered by a member, over both lists (the number in the page title). */
export function unreadCount(inbox: Inbox | undefined): number {
  if (!inbox) return 0;
  return [...inbox.waiting, ...inbox.open].reduce((sum, item) => sum + item.unread, 0);
}

export const titleWith = (unread: number, title: string) => (unread > 0 ? `(${unread}) ${title}` : title);

/**
 * Keeps the inbox live while the console is open (whatever tab is shown): reloads every inbox
 * query on `inbox:changed` over `/admin`, and puts the unread count in the page title, which is
 * given back when the console closes. Returns whether the feed is connected.
 */
export function useInboxWatch(title: string, connect: () => AdminFeed = connectAdminFeed): boolean {
  const live = useLiveReload(connect, ['inbox:changed'], INBOX_QUERY);
  const unread = unreadCount(useInboxList().data);
  useEffect(() => {
    const before = document.title;
    return () => {
      document.title = before;
    };
  }, []);
  useEffect(() => {
    document.title = titleWith(unread, title);
  }, [unread, title]);
  return live;
}
