import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { BudgetOverview, BudgetStatus } from '@shared/contracts/limits';
import { fakeLiveFeed } from '../analytics/testing/fake-analytics-server';
import { makeGlobal } from '../configuration/testing/fake-config-server';
import BudgetsTab from './BudgetsTab';

function status(overrides: Partial<BudgetStatus> = {}): BudgetStatus {
  return { scope: 'global', label: 'All chats', monthlyUsd: 100, softPercent: 80, onCap: 'refuse', spentUsd: 10, heldUsd: 0, forecastUsd: 30, state: 'ok', ...overrides };
}

function overview(overrides: Partial<BudgetOverview> = {}): BudgetOverview {
  return { month: '2026-11', elapsed: 0.3, budgets: [status()], spendByScope: { global: 10 }, alerts: [], visitorDailyTokens: null, ...overrides };
}

/** The network edge: GET /api/budgets answers the current overview, GET /api/config the settings, PUT is recorded. */
function fakeServer(initial: BudgetOverview) {
  const state = { overview: initial, puts: [] as unknown[] };
  const json = (data: unknown, status = 200) => new Response(JSON.stringify(data), { status, headers: { 'Content-Type': 'application/json' } });
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = new URL(String(input), 'http://localhost');
      if (url.pathname === '/api/budgets') return json({ success: true, data: state.overview });
      if (url.pathname === '/api/config') return json({ success: true, data: { agents: [], global: makeGlobal({ budgets: { list: [{ scope: 'global', monthlyUsd: 100, softPercent: 80, onCap: 'refuse' }], visitorDailyTokens: null } }) } });
      if (url.pathname === '/api/config/global' && init?.method === 'PUT') {
        state.puts.push(JSON.parse(String(init.body)));
        return json({ success: true, data: makeGlobal() });
      }
      return json({ success: false, error: { code: 'not_found', message: 'No such route.' } }, 404);
    }),
  );
  return state;
}

function renderTab(live = fakeLiveFeed()) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(
    <QueryClientProvider client={client}>
      <BudgetsTab connectLive={live.connect} />
    </QueryClientProvider>,
  );
  return live;
}

afterEach(() => vi.unstubAllGlobals());

describe('Budgets tab', () => {
  it("shows each budget's spend against its limit, and the bar moves when the server pushes budget:update", async () => {
    const server = fakeServer(overview());
    const live = renderTab();
    const bar = await screen.findByRole('progressbar', { name: 'All chats: 10% of the monthly limit spent' });
    expect(bar).toHaveAttribute('aria-valuenow', '10');
    expect(screen.getByText('$10.00 of $100.00')).toBeInTheDocument();
    expect(screen.getByText('Forecast to month end: $30.00')).toBeInTheDocument();

    server.overview = overview({
      budgets: [status({ spentUsd: 85, forecastUsd: 250, state: 'soft' })],
      alerts: [{ scope: 'global', label: 'All chats', threshold: 'soft', month: '2026-11', at: '2026-11-10T10:00:00.000Z', spentUsd: 85, monthlyUsd: 100 }],
    });
    live.emit('budget:update', { month: '2026-11' });
    await waitFor(() => expect(screen.getByRole('progressbar', { name: 'All chats: 85% of the monthly limit spent' })).toBeInTheDocument());
    expect(screen.getByText('Past the soft threshold')).toBeInTheDocument();
    expect(within(screen.getByRole('alert')).getByText(/Budget "All chats" passed its soft threshold: \$85\.00 of \$100\.00/)).toBeInTheDocument();
  });

  it('saves the budgets as the contract says (scope, limit, soft threshold, behaviour at the cap) and the tokens per visitor', async () => {
    const server = fakeServer(overview());
    renderTab();
    const user = userEvent.setup();
    const limit = await screen.findByRole('spinbutton', { name: 'Monthly limit (USD)' });
    await user.clear(limit);
    await user.type(limit, '250');
    await user.selectOptions(screen.getByRole('combobox', { name: 'At the limit' }), 'offline');
    await user.click(screen.getByRole('button', { name: 'Add budget' }));
    await user.type(screen.getByRole('spinbutton', { name: 'Tokens per visitor per day' }), '50000');
    await user.click(screen.getByRole('button', { name: 'Save budgets' }));
    await waitFor(() => expect(server.puts).toHaveLength(1));
    expect(server.puts[0]).toEqual({
      budgets: {
        list: [
          { scope: 'global', monthlyUsd: 250, softPercent: 80, onCap: 'offline' },
          { scope: 'vertical:customer-service', monthlyUsd: 100, softPercent: 80, onCap: 'refuse' },
        ],
        visitorDailyTokens: 50000,
      },
    });
    expect(await screen.findByText('Budgets saved')).toBeInTheDocument();
  });
});
