/** Texts of the console shell, in one place (tests check them word for word). */
/** A key test's button and its result badge (an agent's Configure dialog and card, the Embeddings section). */
export const KEY_TEST = {
  test: 'Test',
  valid: 'Valid',
  invalid: 'Invalid',
};

export const CONSOLE = {
  title: 'Admin Dashboard',
  backToSupport: 'Back to Support',
  userFallback: 'Admin User',
  logout: 'Logout',
  loggingOut: 'Logging out...',
  tabsLabel: 'Admin sections',
  tabs: {
    knowledge: 'Knowledge Base',
    configuration: 'Configuration',
    analytics: 'Analytics',
    conversations: 'Conversations',
    inbox: 'Inbox',
    budgets: 'Budgets',
    apiKeys: 'API keys',
    widgets: 'Widgets',
    team: 'Team',
    audit: 'Audit',
    security: 'Security',
  },
};
