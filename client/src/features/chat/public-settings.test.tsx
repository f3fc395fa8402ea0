import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { fakeFetch, renderChat, serverSays } from './testing/render-chat';

function settingsFetch(data: unknown) {
  return fakeFetch(async (url) => {
    if (url === '/api/public/settings') return new Response(JSON.stringify({ success: true, data }), { status: 200, headers: { 'Content-Type': 'application/json' } });
    throw new TypeError('Failed to fetch');
  });
}

const ALL_ON = ['customer-service', 'hr', 'legal', 'sales'].map((id) => ({ id, enabled: true }));

describe('chat page and the administrators’ global settings', () => {
  it('shows a vertical the administrators switched off as disabled and ignores clicks on it', async () => {
    const net = settingsFetch({ defaultLanguage: 'en', verticals: [...ALL_ON.filter((v) => v.id !== 'hr'), { id: 'hr', enabled: false }, { id: 'future', enabled: false }] });
    const { user } = renderChat({ fetch: net.fetch });
    const hrTab = await screen.findByRole('tab', { name: /Employee Support/ });
    await waitFor(() => expect(hrTab).toHaveAttribute('aria-disabled', 'true'));
    expect(hrTab).toHaveTextContent('Unavailable');
    await user.click(hrTab);
    expect(hrTab).toHaveAttribute('aria-selected', 'false');
    expect(screen.getByRole('tab', { name: /Customer Support/ })).toHaveAttribute('aria-selected', 'true');
  });

  it('moves to the first usable vertical when the default one is switched off', async () => {
    const net = settingsFetch({ defaultLanguage: 'en', verticals: [{ id: 'customer-service', enabled: false }, ...ALL_ON.slice(1)] });
    renderChat({ fetch: net.fetch });
    await waitFor(() => expect(screen.getByRole('tab', { name: /Employee Support/ })).toHaveAttribute('aria-selected', 'true'));
    expect(screen.getByRole('heading', { name: 'Employee Support' })).toBeInTheDocument();
  });

  it('starts in the default language the administrators chose', async () => {
    const net = settingsFetch({ defaultLanguage: 'es', verticals: ALL_ON });
    renderChat({ fetch: net.fetch });
    await waitFor(() => expect(screen.getByRole('combobox', { name: /language|idioma/i })).toHaveValue('es'));
  });

  it('keeps the catalogue defaults when the settings cannot be loaded', async () => {
    renderChat();
    expect(await screen.findByRole('tab', { name: /Employee Support/ })).not.toHaveAttribute('aria-disabled');
  });
});

describe('settings changes reach an open page live (settings:changed)', () => {
  const push = (enabled: Record<string, boolean>, defaultLanguage = 'en') => {
    const verticals = ['customer-service', 'hr', 'legal', 'sales', 'future'].map((id) => ({ id, enabled: id !== 'future' && enabled[id] !== false }));
    return { defaultLanguage, verticals, enabledVerticals: verticals.filter((v) => v.enabled).map((v) => v.id) };
  };

  it('greys a vertical switched off, and un-greys it when switched on again', async () => {
    const net = settingsFetch(push({}));
    const { socket } = renderChat({ fetch: net.fetch });
    const sales = await screen.findByRole('tab', { name: /Sales Advisor/ });
    expect(sales).not.toHaveAttribute('aria-disabled');
    serverSays(() => socket.fire('settings:changed', push({ sales: false })));
    expect(sales).toHaveAttribute('aria-disabled', 'true');
    expect(sales).toHaveClass('is-disabled');
    serverSays(() => socket.fire('settings:changed', push({})));
    expect(sales).not.toHaveAttribute('aria-disabled');
  });

  it('a visitor on a tab that gets switched off is told so and moved to a usable one', async () => {
    const net = settingsFetch(push({}));
    const { socket, user } = renderChat({ fetch: net.fetch });
    await user.click(await screen.findByRole('tab', { name: /Sales Advisor/ }));
    serverSays(() => socket.fire('settings:changed', push({ sales: false })));
    expect(screen.getByRole('alert')).toHaveTextContent('Sales Advisor is not available right now. Please choose another service.');
    expect(screen.getByRole('tab', { name: /Customer Support/ })).toHaveAttribute('aria-selected', 'true');
  });

  it('a new default language applies live to a visitor who has not chosen one', async () => {
    const net = settingsFetch(push({}));
    const { socket } = renderChat({ fetch: net.fetch });
    await screen.findByRole('tab', { name: /Sales Advisor/ });
    serverSays(() => socket.fire('settings:changed', push({}, 'it')));
    expect(document.documentElement.lang).toBe('it');
  });

  it('reads the settings again after a reconnect (a change may have been missed meanwhile)', async () => {
    const net = settingsFetch(push({}));
    const { socket } = renderChat({ fetch: net.fetch });
    await screen.findByRole('tab', { name: /Sales Advisor/ });
    const reads = () => net.calls.filter((c) => c.url === '/api/public/settings').length;
    const before = reads();
    serverSays(() => socket.serverDisconnect());
    serverSays(() => socket.serverConnect());
    await waitFor(() => expect(reads()).toBe(before + 1));
  });
});
