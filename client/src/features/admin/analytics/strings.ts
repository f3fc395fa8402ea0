/**
 * Every text of the Analytics tab, in one place. Texts quoted by the product spec (section 2
 * "Analytics tab") are copied exactly; the rest are ours.
 */
export const ANALYTICS = {
  title: 'LLM Usage Analytics',
  rangeLabel: 'Time range',
  ranges: [
    { hours: 1, label: 'Last Hour' },
    { hours: 24, label: 'Last 24 Hours' },
    { hours: 168, label: 'Last Week' },
    { hours: 720, label: 'Last Month' },
  ] as const,
  refresh: 'Refresh',
  loading: 'Loading analytics...',
  loadFailed: 'Analytics could not be loaded. Try Refresh.',
  live: 'Live',
  liveTitle: 'Updates as requests come in',
  exportJson: 'Export JSON',
  exportCsv: 'Export CSV',
  cards: {
    totalRequests: 'Total Requests',
    tokensUsed: 'Tokens Used',
    totalCost: 'Total Cost',
    avgResponse: 'Avg Response',
    conversations: 'Conversations',
    messagesPerConversation: 'Messages / Conversation',
    answeredRate: 'Answered from Knowledge',
    limited: 'Refused by Limits',
  },
  /** Names of the rules that refused requests (limitedRequests.byRule). */
  limitedRules: {
    ip: 'per address',
    visitor: 'per visitor',
    socket: 'per socket',
    key: 'per API key',
    concurrent: 'replies at once',
    sockets: 'sockets per address',
    budget: 'budget cap',
    visitor_tokens: 'visitor tokens',
  } as Record<string, string>,
  trends: {
    title: 'Hourly Usage Trends',
    requests: 'Requests',
    tokens: 'Tokens',
    cost: 'Cost',
    errors: 'errors',
    peak: 'peak',
    empty: 'No requests in this period',
    chartLabel: (metric: string, peak: string, total: string) => `${metric} per hour: total ${total}, peak ${peak}`,
  },
  verticals: {
    title: 'Requests by Vertical',
    empty: 'No requests in this period',
  },
  agents: {
    title: 'Agent Performance',
    columns: {
      agent: 'Agent',
      requests: 'Requests',
      successRate: 'Success Rate',
      answered: 'Answered from knowledge',
      avgResponse: 'Avg Response',
      cost: 'Cost',
      tokens: 'Tokens',
      helpful: 'Helpful',
    },
    votes: (n: number) => `${n} ${n === 1 ? 'vote' : 'votes'}`,
    answeredTitle: 'Successful replies that cited the knowledge base (the rest said nothing matched)',
    empty: 'No agent activity in this period',
  },
  costs: {
    title: 'Cost Breakdown by Model',
    requests: (n: string) => `${n} requests`,
    tokens: (n: string) => `${n} tokens`,
    empty: 'No model usage in this period',
  },
  errors: {
    title: 'Recent Errors',
    empty: 'No recent errors',
  },
  missing: '-',
};
