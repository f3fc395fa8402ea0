import { AppWindow, BookOpen, ChartColumn, Inbox, KeyRound, MessagesSquare, ScrollText, Settings, ShieldCheck, Users, Wallet, type LucideIcon } from 'lucide-react';
import { useEffect, useId, useMemo, useRef, useState, type ComponentType, type KeyboardEvent } from 'react';
import { AnalyticsTab } from '../analytics/AnalyticsTab';
import { ApiKeysTab } from '../api-keys/ApiKeysTab';
import { AuditTab } from '../audit/AuditTab';
import { BudgetsTab } from '../budgets/BudgetsTab';
import { ConfigurationTab } from '../configuration/ConfigurationTab';
import { ConsoleNavigationContext, type ConsoleNavigation, type KnowledgeDraft } from '../console-navigation';
import { ConversationsTab } from '../conversations/ConversationsTab';
import { InboxTab } from '../inbox/InboxTab';
import { useInboxWatch } from '../inbox/hooks/useInbox';
import { KnowledgeTab } from '../knowledge/KnowledgeTab';
import { SecurityTab } from '../security/SecurityTab';
import { TeamTab } from '../team/TeamTab';
import { WidgetsTab } from '../widgets/WidgetsTab';
import { CONSOLE } from '../strings';
import { useAuth } from '../../auth';
import { can, type AccessRule } from '@shared/contracts/roles';
import { AdminHeader } from './AdminHeader';

export type AdminTabId = 'knowledge' | 'configuration' | 'analytics' | 'conversations' | 'inbox' | 'budgets' | 'api-keys' | 'widgets' | 'team' | 'audit' | 'security';

const ALL_TABS: Array<{ id: AdminTabId; label: string; icon: LucideIcon; access?: AccessRule }> = [
  { id: 'knowledge', label: CONSOLE.tabs.knowledge, icon: BookOpen },
  { id: 'configuration', label: CONSOLE.tabs.configuration, icon: Settings, access: 'configuration' },
  { id: 'analytics', label: CONSOLE.tabs.analytics, icon: ChartColumn, access: 'analyticsRead' },
  { id: 'conversations', label: CONSOLE.tabs.conversations, icon: MessagesSquare },
  { id: 'inbox', label: CONSOLE.tabs.inbox, icon: Inbox, access: 'conversationsAnswer' },
  { id: 'budgets', label: CONSOLE.tabs.budgets, icon: Wallet, access: 'budgets' },
  { id: 'api-keys', label: CONSOLE.tabs.apiKeys, icon: KeyRound, access: 'apiKeys' },
  { id: 'widgets', label: CONSOLE.tabs.widgets, icon: AppWindow, access: 'widgets' },
  { id: 'team', label: CONSOLE.tabs.team, icon: Users, access: 'team' },
  { id: 'audit', label: CONSOLE.tabs.audit, icon: ScrollText, access: 'audit' },
  { id: 'security', label: CONSOLE.tabs.security, icon: ShieldCheck },
];

const PANELS: Record<AdminTabId, ComponentType> = {
  knowledge: KnowledgeTab,
  configuration: ConfigurationTab,
  analytics: AnalyticsTab,
  conversations: ConversationsTab,
  inbox: InboxTab,
  budgets: BudgetsTab,
  'api-keys': ApiKeysTab,
  widgets: WidgetsTab,
  team: TeamTab,
  audit: AuditTab,
  security: SecurityTab,
};

/** Keeps the inbox live while the console is open, its unread count in the page title. */
function InboxWatch() {
  useInboxWatch(CONSOLE.title);
  return null;
}

/**
 * The console shell: header and the tabs (Knowledge Base first), keyboard navigable as an ARIA
 * tablist; it carries requests between tabs (Knowledge gaps' "Create knowledge item").
 */
export function AdminConsole() {
  const ids = useId();
  const { user } = useAuth();
  // A tab the member's role may not use is not shown (the server refuses its calls anyway).
  const TABS = ALL_TABS.filter((tab) => !tab.access || can(user?.role, tab.access));
  const [active, setActive] = useState<AdminTabId>('knowledge');
  const tabRefs = useRef<Array<HTMLButtonElement | null>>([]);
  const Panel = PANELS[active];
  const [knowledgeDraft, setKnowledgeDraft] = useState<ConsoleNavigation['knowledgeDraft']>(null);
  const drafts = useRef(0);
  const navigation = useMemo<ConsoleNavigation>(
    () => ({
      knowledgeDraft,
      createKnowledgeItem: (draft: KnowledgeDraft) => {
        setKnowledgeDraft({ key: ++drafts.current, draft });
        setActive('knowledge');
      },
      draftOpened: () => setKnowledgeDraft(null),
    }),
    [knowledgeDraft],
  );

  // On a phone the tab bar scrolls sideways: the selected tab is kept in view (chosen from another
  // tab, or the phone turned), scrolling the bar alone, never the page.
  useEffect(() => {
    const tab = tabRefs.current[TABS.findIndex((t) => t.id === active)];
    const bar = tab?.parentElement;
    if (!tab || !bar) return;
    const reveal = () => {
      const t = tab.getBoundingClientRect();
      const b = bar.getBoundingClientRect();
      if (t.left < b.left) bar.scrollLeft -= b.left - t.left + 4;
      else if (t.right > b.right) bar.scrollLeft += t.right - b.right + 4;
    };
    reveal();
    window.addEventListener('resize', reveal);
    return () => window.removeEventListener('resize', reveal);
  }, [active]);

  const onKeyDown = (event: KeyboardEvent<HTMLButtonElement>, index: number) => {
    const moves: Record<string, number> = { ArrowRight: index + 1, ArrowLeft: index - 1, Home: 0, End: TABS.length - 1 };
    if (!(event.key in moves)) return;
    event.preventDefault();
    const next = (moves[event.key] + TABS.length) % TABS.length;
    setActive(TABS[next].id);
    tabRefs.current[next]?.focus();
  };

  return (
    <div className="admin-page">
      {can(user?.role, 'conversationsAnswer') && <InboxWatch />}
      <AdminHeader />
      <main className="admin-main">
        <div className="admin-tabs" role="tablist" aria-label={CONSOLE.tabsLabel}>
          {TABS.map((tab, index) => {
            const selected = tab.id === active;
            const Icon = tab.icon;
            return (
              <button
                key={tab.id}
                ref={(el) => {
                  tabRefs.current[index] = el;
                }}
                type="button"
                role="tab"
                id={`${ids}-tab-${tab.id}`}
                aria-selected={selected}
                aria-controls={`${ids}-panel-${tab.id}`}
                tabIndex={selected ? 0 : -1}
                className={`admin-tab${selected ? ' is-active' : ''}`}
                onClick={() => setActive(tab.id)}
                onKeyDown={(event) => onKeyDown(event, index)}
              >
                <Icon size={18} aria-hidden="true" />
                {tab.label}
              </button>
            );
          })}
        </div>
        <section className="admin-panel" role="tabpanel" id={`${ids}-panel-${active}`} aria-labelledby={`${ids}-tab-${active}`} tabIndex={0}>
          <ConsoleNavigationContext.Provider value={navigation}>
            <Panel />
          </ConsoleNavigationContext.Provider>
        </section>
      </main>
    </div>
  );
}
