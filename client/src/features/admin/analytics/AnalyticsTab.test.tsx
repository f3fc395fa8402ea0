import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import AnalyticsTab from './AnalyticsTab';
import { fakeAnalyticsServer, fakeLiveFeed, makeAgentRow, makeCostRow, makePerformance, makeSystem } from './testing/fake-analytics-server';

function renderTab(live = fakeLiveFeed()) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const view = render(
    <QueryClientProvider client={client}>
      <AnalyticsTab connectLive={live.connect} />
    </QueryClientProvider>,
  );
  return { ...view, live };
}

const card = (name: string) => within(screen.getByRole('group', { name })).getByText(/./, { selector: '.analytics-card-value' });

describe('Analytics tab', () => {
  let errorLog: ReturnType<typeof vi.spyOn>;

  beforeEach(() => {
    errorLog = vi.spyOn(console, 'error').mockImplementation(() => undefined);
  });

  afterEach(() => {
    vi.unstubAllGlobals();
    errorLog.mockRestore();
  });

  it('shows the requests a rate limit or a budget refused, by rule', async () => {
    fakeAnalyticsServer({ system: makeSystem({ limitedRequests: { total: 17, byRule: { ip: 12, budget: 5, socket: 0 } } }) });
    renderTab();
    expect(await screen.findByRole('group', { name: 'Refused by Limits' })).toBeInTheDocument();
    expect(card('Refused by Limits')).toHaveTextContent('17');
    expect(within(screen.getByRole('group', { name: 'Refused by Limits' })).getByText('per address: 12, budget cap: 5')).toBeInTheDocument();
  });

  it('loads the four figures of the last 24 hours in parallel and shows the cards (the conversation figures among them)', async () => {
    const server = fakeAnalyticsServer();
    renderTab();
    expect(screen.getByRole('heading', { name: 'LLM Usage Analytics' })).toBeInTheDocument();
    expect(screen.getByRole('combobox', { name: 'Time range' })).toHaveValue('24');
    expect(await screen.findByRole('group', { name: 'Total Requests' })).toBeInTheDocument();
    expect(card('Total Requests')).toHaveTextContent('1,234');
    expect(card('Tokens Used')).toHaveTextContent('56,789');
    expect(card('Total Cost')).toHaveTextContent('$12.35');
    expect(card('Avg Response')).toHaveTextContent('246ms');
    expect(card('Conversations')).toHaveTextContent('321');
    expect(card('Messages / Conversation')).toHaveTextContent('4.3');
    expect(card('Answered from Knowledge')).toHaveTextContent(/^-$/);
    for (const name of ['system', 'agents', 'costs', 'performance']) {
      expect(server.callsTo(name)).toHaveLength(1);
      expect(server.callsTo(name)[0].searchParams.get('hours')).toBe('24');
    }
  });

  it("shows '-' for Avg Response when there is no figure", async () => {
    fakeAnalyticsServer({ performance: makePerformance({ averageResponseTime: null }) });
    renderTab();
    await screen.findByRole('group', { name: 'Avg Response' });
    expect(card('Avg Response')).toHaveTextContent(/^-$/);
  });

  it('shows the loading state until the figures arrive', async () => {
    const server = fakeAnalyticsServer();
    const release = server.hold();
    renderTab();
    expect(await screen.findByRole('status')).toHaveTextContent('Loading analytics...');
    expect(screen.queryByRole('group', { name: 'Total Requests' })).not.toBeInTheDocument();
    release();
    expect(await screen.findByRole('group', { name: 'Total Requests' })).toBeInTheDocument();
    expect(screen.queryByText('Loading analytics...')).not.toBeInTheDocument();
  });

  it('colours each agent\'s Success Rate badge by error rate and shows (1 - errorRate) with one decimal, the Answered from knowledge rate beside it', async () => {
    fakeAnalyticsServer({
      agents: [
        makeAgentRow({ agentId: 'a', agentName: 'Alpha', errorRate: 0.0149, answeredRate: 0.8125 }),
        makeAgentRow({ agentId: 'b', agentName: 'Bravo', errorRate: 0.02 }),
        makeAgentRow({ agentId: 'c', agentName: 'Charlie', errorRate: 0.0499 }),
        makeAgentRow({ agentId: 'd', agentName: 'Delta', errorRate: 0.05 }),
        makeAgentRow({ agentId: 'e', agentName: 'Echo', errorRate: 0.25, averageResponseTime: null, helpfulRate: 0.75, feedback: { up: 3, down: 1 } }),
      ],
    });
    renderTab();
    const table = await screen.findByRole('table', { name: 'Agent Performance' });
    expect(within(table).getAllByRole('columnheader').map((h) => h.textContent)).toEqual(['Agent', 'Requests', 'Success Rate', 'Answered from knowledge', 'Avg Response', 'Cost', 'Tokens', 'Helpful']);
    const badge = (name: string) => within(within(table).getByRole('row', { name: new RegExp(name) })).getByText(/%$/, { selector: '.success-badge' });
    expect(badge('Alpha')).toHaveTextContent('98.5%');
    expect(badge('Alpha')).toHaveAttribute('data-colour', 'green');
    expect(badge('Bravo')).toHaveTextContent('98.0%');
    expect(badge('Bravo')).toHaveAttribute('data-colour', 'yellow');
    expect(badge('Charlie')).toHaveAttribute('data-colour', 'yellow');
    expect(badge('Delta')).toHaveTextContent('95.0%');
    expect(badge('Delta')).toHaveAttribute('data-colour', 'red');
    expect(badge('Echo')).toHaveTextContent('75.0%');
    expect(badge('Echo')).toHaveAttribute('data-colour', 'red');
    const alpha = within(table).getByRole('row', { name: /Alpha/ });
    expect(within(alpha).getAllByRole('cell').map((c) => c.textContent)).toEqual(['900', '98.5%', '81.3%', '812ms', '$9.88', '40,000', '-']);
    const echo = within(table).getByRole('row', { name: /Echo/ });
    expect(within(echo).getAllByRole('cell').map((c) => c.textContent)).toEqual(['900', '75.0%', '-', '-', '$9.88', '40,000', '75.0% (4 votes)']);
  });

  it('draws one bar per vertical, hyphens shown as spaces, as wide as its share of all requests', async () => {
    fakeAnalyticsServer({ system: makeSystem({ requestsByVertical: { hr: 10, 'customer-service': 30 } }) });
    const { container } = renderTab();
    await screen.findByRole('heading', { name: 'Requests by Vertical' });
    const bars = [...container.querySelectorAll('.vertical-bar[data-vertical]')];
    expect(bars.map((b) => b.querySelector('.vertical-bar-label')!.textContent)).toEqual(['Customer Support', 'Employee Support']);
    expect(bars.map((b) => b.querySelector('.vertical-bar-count')!.textContent)).toEqual(['30', '10']);
    expect(bars.map((b) => (b.querySelector('.vertical-bar-fill') as HTMLElement).style.width)).toEqual(['75%', '25%']);
  });

  it('draws one bar per channel, named for people: the chat page and widget, /interact, A2A agents, MCP tools', async () => {
    fakeAnalyticsServer({ system: makeSystem({ requestsByChannel: { mcp: 5, socket: 60, a2a: 15, sse: 20 } }) });
    const { container } = renderTab();
    await screen.findByRole('heading', { name: 'Requests by Channel' });
    const bars = [...container.querySelectorAll('.vertical-bar[data-channel]')];
    expect(bars.map((b) => b.querySelector('.vertical-bar-label')!.textContent)).toEqual(['Chat page and widget', '/interact (streamed)', 'A2A agents', 'MCP tools']);
    expect(bars.map((b) => (b.querySelector('.vertical-bar-fill') as HTMLElement).style.width)).toEqual(['60%', '20%', '15%', '5%']);
  });

  it('charts requests, tokens and cost per hour and tells an hour\'s figures on hover or arrow keys', async () => {
    const user = userEvent.setup();
    fakeAnalyticsServer();
    const { container } = renderTab();
    await screen.findByRole('heading', { name: 'Hourly Usage Trends' });
    const charts = screen.getAllByRole('img');
    expect(charts.map((c) => c.getAttribute('aria-label'))).toEqual([
      'Requests per hour: total 1,234, peak 1,034',
      'Tokens per hour: total 56,789, peak 47,789',
      'Cost per hour: total $12.35, peak $10.25',
    ]);
    expect(container.querySelectorAll('.metric-requests .trend-bar')).toHaveLength(2);
    expect(container.querySelectorAll('.metric-requests .trend-errors')).toHaveLength(2);
    await user.click(container.querySelector('.trend-charts')!);
    await user.keyboard('{End}');
    expect(container.querySelector('.trend-tooltip')).toHaveTextContent(/1,034 requests \(10 errors\), 47,789 tokens, \$10\.25/);
  });

  it('lists the cost per model: provider - model, requests, cost, tokens', async () => {
    fakeAnalyticsServer({ costs: [makeCostRow(), makeCostRow({ provider: 'anthropic', model: 'claude-haiku-4-5', requestCount: 3, totalCost: 0.0042, totalTokens: 900 })] });
    renderTab();
    await screen.findByRole('heading', { name: 'Cost Breakdown by Model' });
    const rows = [...document.querySelectorAll('.cost-row')].map((r) => [
      r.querySelector('.cost-model')!.textContent,
      r.querySelector('.cost-requests')!.textContent,
      r.querySelector('.cost-amount')!.textContent,
      r.querySelector('.cost-tokens')!.textContent,
    ]);
    expect(rows).toEqual([
      ['openai - gpt-4o-mini', '1,234 requests', '$12.35', '56,789 tokens'],
      ['anthropic - claude-haiku-4-5', '3 requests', '$0.0042', '900 tokens'],
    ]);
  });

  it("shows 'No recent errors', or each error's agent, time and text", async () => {
    const server = fakeAnalyticsServer();
    const user = userEvent.setup();
    renderTab();
    expect(await screen.findByText('No recent errors')).toBeInTheDocument();
    server.set({
      system: makeSystem({
        recentErrors: [{ agent: 'HR Agent', agentId: 'hr-agent', vertical: 'hr', timestamp: '2025-01-01T10:15:00.000Z', error: 'The AI provider returned an error (HTTP 500)', code: 'provider_error' }],
      }),
    });
    await user.click(screen.getByRole('button', { name: 'Refresh' }));
    expect(await screen.findByText('The AI provider returned an error (HTTP 500)')).toBeInTheDocument();
    expect(screen.getByText('HR Agent')).toBeInTheDocument();
    expect(screen.getByText('HR Agent').parentElement!.querySelector('time')).toHaveAttribute('dateTime', '2025-01-01T10:15:00.000Z');
    expect(screen.queryByText('No recent errors')).not.toBeInTheDocument();
  });

  it('reloads for another time range', async () => {
    const server = fakeAnalyticsServer();
    const user = userEvent.setup();
    renderTab();
    await screen.findByRole('group', { name: 'Total Requests' });
    expect(screen.getAllByRole('option').map((o) => [o.textContent, (o as HTMLOptionElement).value])).toEqual([
      ['Last Hour', '1'],
      ['Last 24 Hours', '24'],
      ['Last Week', '168'],
      ['Last Month', '720'],
    ]);
    server.set({ system: makeSystem({ totalRequests: 99999 }) });
    await user.selectOptions(screen.getByRole('combobox', { name: 'Time range' }), '168');
    await waitFor(() => expect(card('Total Requests')).toHaveTextContent('99,999'));
    expect(server.callsTo('performance').map((u) => u.searchParams.get('hours'))).toEqual(['24', '168']);
    expect(screen.getByRole('link', { name: 'Export CSV' })).toHaveAttribute('href', '/api/analytics/export?format=csv&hours=168');
    expect(screen.getByRole('link', { name: 'Export JSON' })).toHaveAttribute('href', '/api/analytics/export?format=json&hours=168');
  });

  it('a failed load is logged and clears all the figures', async () => {
    const server = fakeAnalyticsServer();
    const user = userEvent.setup();
    renderTab();
    await screen.findByRole('group', { name: 'Total Requests' });
    server.fail();
    await user.click(screen.getByRole('button', { name: 'Refresh' }));
    await waitFor(() => expect(screen.queryByRole('group', { name: 'Total Requests' })).not.toBeInTheDocument());
    expect(screen.queryByRole('table')).not.toBeInTheDocument();
    expect(screen.queryByText('No recent errors')).not.toBeInTheDocument();
    expect(screen.queryByRole('heading', { name: 'Agent Performance' })).not.toBeInTheDocument();
    expect(errorLog).toHaveBeenCalledWith('Failed to load analytics', expect.anything());
    server.fail(false);
    await user.click(screen.getByRole('button', { name: 'Refresh' }));
    expect(await screen.findByRole('group', { name: 'Total Requests' })).toBeInTheDocument();
  });

  it('updates by itself when the server pushes analytics:update, without Refresh', async () => {
    const server = fakeAnalyticsServer();
    const live = fakeLiveFeed();
    const { unmount } = renderTab(live);
    await screen.findByRole('group', { name: 'Total Requests' });
    live.emit('connect');
    expect(await screen.findByText('Live')).toBeInTheDocument();
    server.set({ system: makeSystem({ totalRequests: 1240 }) });
    live.push();
    await waitFor(() => expect(card('Total Requests')).toHaveTextContent('1,240'));
    expect(server.callsTo('system')).toHaveLength(2);
    unmount();
    expect(live.disconnected).toBe(true);
  });
});
