/** Texts of the console shell. Texts quoted by the product spec (section 2 "Admin console") are copied exactly. */
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
    budgets: 'Budgets',
  },
};
