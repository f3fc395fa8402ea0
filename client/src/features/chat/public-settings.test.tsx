import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { fakeFetch, renderChat } from './testing/render-chat';

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
    await waitFor(() => expect(screen.getByRole('combobox', { name: /language/i })).toHaveValue('es'));
  });

  it('keeps the catalogue defaults when the settings cannot be loaded', async () => {
    renderChat();
    expect(await screen.findByRole('tab', { name: /Employee Support/ })).not.toHaveAttribute('aria-disabled');
  });
});
