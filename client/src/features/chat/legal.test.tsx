import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { getJurisdiction, JURISDICTIONS, UAE_EMIRATES, UK_REGIONS, US_STATES } from '@shared/catalog/jurisdictions';
import { getVertical } from '@shared/catalog/verticals';
import { makeReplyData } from './testing/factories';
import { renderChat, serverSays } from './testing/render-chat';

const US_WARNING = getJurisdiction('US')!.warning!;
const AE_WARNING = getJurisdiction('AE')!.warning!;
const LEGAL_NOTICE = /This service gives general legal information, not legal advice\./;

const dialog = () => screen.getByRole('dialog', { name: 'Select Jurisdiction' });
const queryDialog = () => screen.queryByRole('dialog', { name: 'Select Jurisdiction' });
const badge = () => screen.getByRole('status', { name: 'Selected jurisdiction' });
const input = () => screen.getByRole('textbox', { name: 'Your message' });
const messages = () => Array.from(screen.getByRole('log').querySelectorAll('.message'));

async function openLegal() {
  const chat = renderChat();
  await chat.user.click(screen.getByRole('tab', { name: /Legal Advisor/ }));
  return chat;
}

async function pickSubRegion(user: Awaited<ReturnType<typeof openLegal>>['user'], country: string, region: string) {
  await user.click(within(dialog()).getByRole('button', { name: new RegExp(country) }));
  await user.selectOptions(within(dialog()).getByRole('combobox'), region);
  await user.click(within(dialog()).getByRole('button', { name: 'Continue' }));
}

describe('legal vertical: jurisdiction modal', () => {
  it("opens 'Select Jurisdiction' with its subtitle by itself when no jurisdiction is chosen", async () => {
    await openLegal();
    expect(dialog()).toHaveAttribute('aria-modal', 'true');
    expect(within(dialog()).getByRole('heading', { name: 'Select Jurisdiction' })).toBeInTheDocument();
    expect(dialog()).toHaveAccessibleDescription(/accurate guidance/);
  });

  it('shows the six jurisdictions as a grid of buttons with their flags', async () => {
    await openLegal();
    const buttons = within(dialog()).getAllByRole('button').filter((b) => b.hasAttribute('data-code'));
    expect(buttons.map((b) => b.getAttribute('data-code'))).toEqual(JURISDICTIONS.map((j) => j.code));
    JURISDICTIONS.forEach((j, i) => {
      expect(buttons[i]).toHaveTextContent(j.name);
      expect(buttons[i]).toHaveTextContent(j.flag);
    });
  });

  it('chooses a country without sub-regions at once: modal closes, welcome names it, badge and Change button appear', async () => {
    const { user } = await openLegal();
    await user.click(within(dialog()).getByRole('button', { name: /Japan/ }));
    expect(queryDialog()).not.toBeInTheDocument();
    expect(messages()[messages().length - 1]).toHaveTextContent('Jurisdiction set to Japan (Civil Law).');
    expect(badge()).toHaveTextContent('🇯🇵');
    expect(badge()).toHaveTextContent('Japan');
    expect(screen.getByRole('button', { name: 'Change Jurisdiction' })).toBeInTheDocument();
    expect(screen.queryByRole('note')).not.toBeInTheDocument();
    // The welcome above no longer asks for a jurisdiction: one is chosen.
    expect(screen.getByRole('log')).not.toHaveTextContent(/choose a jurisdiction/i);
    expect(messages()[0]).toHaveTextContent("Welcome! I'm your legal information assistant. I provide general legal information, not legal advice.");
  });

  it('US goes to a state step: Back returns to the grid, Continue stays disabled until a state is picked', async () => {
    const { user } = await openLegal();
    await user.click(within(dialog()).getByRole('button', { name: /United States/ }));
    const select = within(dialog()).getByRole('combobox', { name: 'Select State' });
    expect(within(select).getAllByRole('option').slice(1).map((o) => o.textContent)).toEqual([...US_STATES]);
    expect(select).toHaveFocus();
    const continueButton = within(dialog()).getByRole('button', { name: 'Continue' });
    expect(continueButton).toBeDisabled();
    await user.click(within(dialog()).getByRole('button', { name: 'Back' }));
    expect(within(dialog()).queryByRole('combobox')).not.toBeInTheDocument();
    expect(within(dialog()).getByRole('button', { name: /United States/ })).toHaveFocus();
    await user.click(within(dialog()).getByRole('button', { name: /United States/ }));
    await user.selectOptions(within(dialog()).getByRole('combobox'), 'California');
    expect(within(dialog()).getByRole('button', { name: 'Continue' })).toBeEnabled();
  });

  it('US -> California: badge with flag, country and state; welcome names it; the state-law warning shows', async () => {
    const { user } = await openLegal();
    await pickSubRegion(user, 'United States', 'California');
    expect(queryDialog()).not.toBeInTheDocument();
    expect(badge()).toHaveTextContent('🇺🇸');
    expect(badge()).toHaveTextContent('United States');
    expect(badge()).toHaveTextContent('California');
    expect(messages()[messages().length - 1]).toHaveTextContent('Jurisdiction set to California, United States (Common Law).');
    expect(screen.getByRole('note')).toHaveTextContent(US_WARNING);
  });

  it('AE -> Dubai shows the emirate and free-zone warning', async () => {
    const { user } = await openLegal();
    await user.click(within(dialog()).getByRole('button', { name: /United Arab Emirates/ }));
    const select = within(dialog()).getByRole('combobox', { name: 'Select Emirate' });
    expect(within(select).getAllByRole('option').slice(1).map((o) => o.textContent)).toEqual([...UAE_EMIRATES]);
    await user.selectOptions(select, 'Dubai');
    await user.click(within(dialog()).getByRole('button', { name: 'Continue' }));
    expect(badge()).toHaveTextContent('Dubai');
    expect(screen.getByRole('note')).toHaveTextContent(AE_WARNING);
  });

  it('UK goes to a region step with its three jurisdictions and shows no warning', async () => {
    const { user } = await openLegal();
    await user.click(within(dialog()).getByRole('button', { name: /United Kingdom/ }));
    const select = within(dialog()).getByRole('combobox', { name: 'Select Region' });
    expect(within(select).getAllByRole('option').slice(1).map((o) => o.textContent)).toEqual([...UK_REGIONS]);
    await user.selectOptions(select, 'Scotland');
    await user.click(within(dialog()).getByRole('button', { name: 'Continue' }));
    expect(badge()).toHaveTextContent('Scotland');
    expect(screen.queryByRole('note')).not.toBeInTheDocument();
  });

  it("shows the legal notice and 'Select Jurisdiction' until one is chosen; other verticals show neither", async () => {
    const { user } = await openLegal();
    await user.keyboard('{Escape}');
    // Compact: one short line; "More" opens the full notice.
    expect(screen.getByText(/General legal information, not legal advice\./)).toBeInTheDocument();
    expect(screen.queryByText(LEGAL_NOTICE, { exact: false })).not.toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'More' }));
    expect(screen.getByText(LEGAL_NOTICE, { exact: false })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Less' })).toHaveAttribute('aria-expanded', 'true');
    expect(screen.getByRole('button', { name: 'Select Jurisdiction' })).toBeInTheDocument();
    expect(screen.queryByRole('status', { name: 'Selected jurisdiction' })).not.toBeInTheDocument();
    await user.click(screen.getByRole('tab', { name: /Sales Advisor/ }));
    expect(screen.queryByText(LEGAL_NOTICE, { exact: false })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Select Jurisdiction' })).not.toBeInTheDocument();
  });

  it('Change Jurisdiction reopens the modal and a new choice adds a new welcome message', async () => {
    const { user } = await openLegal();
    await user.click(within(dialog()).getByRole('button', { name: /India/ }));
    await user.click(screen.getByRole('button', { name: 'Change Jurisdiction' }));
    expect(within(dialog()).getByRole('button', { name: /India/ })).toHaveAttribute('aria-pressed', 'true');
    await user.click(within(dialog()).getByRole('button', { name: /European Union/ }));
    expect(badge()).toHaveTextContent('European Union');
    expect(messages()[messages().length - 1]).toHaveTextContent('Jurisdiction set to European Union (Civil Law).');
  });

  it('closes on Escape and returns focus to where it was', async () => {
    const { user } = await openLegal();
    await user.keyboard('{Escape}');
    expect(queryDialog()).not.toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Select Jurisdiction' }));
    expect(dialog()).toBeInTheDocument();
    await user.keyboard('{Escape}');
    expect(queryDialog()).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Select Jurisdiction' })).toHaveFocus();
  });

  it('traps focus: Tab from the last control goes to the first, Shift+Tab from the first to the last', async () => {
    const { user } = await openLegal();
    const countries = within(dialog()).getAllByRole('button').filter((b) => b.hasAttribute('data-code'));
    const close = within(dialog()).getByRole('button', { name: 'Close' });
    expect(countries[0]).toHaveFocus();
    countries[countries.length - 1].focus();
    await user.tab();
    expect(close).toHaveFocus();
    await user.tab({ shift: true });
    expect(countries[countries.length - 1]).toHaveFocus();
    for (let i = 0; i < 20; i += 1) {
      await user.tab();
      expect(dialog()).toContainElement(document.activeElement as HTMLElement);
    }
  });
});

describe('legal vertical: sending', () => {
  it('sending without a jurisdiction reopens the modal instead and keeps the question', async () => {
    const { user, socket } = await openLegal();
    await user.keyboard('{Escape}');
    await user.type(input(), 'Can my landlord keep my deposit?');
    await user.keyboard('{Enter}');
    expect(dialog()).toBeInTheDocument();
    expect(socket.sends()).toHaveLength(0);
    expect(input()).toHaveValue('Can my landlord keep my deposit?');
  });

  it('sends the jurisdiction code, sub-region, its name and legal system with the question', async () => {
    const { user, socket } = await openLegal();
    await pickSubRegion(user, 'United States', 'California');
    await user.type(input(), 'Can my landlord keep my deposit?');
    await user.keyboard('{Enter}');
    const payload = socket.lastSend();
    expect(payload).toMatchObject({
      query: 'Can my landlord keep my deposit?',
      vertical: 'legal',
      userId: 'demo-user',
      jurisdiction: 'US',
      subJurisdiction: 'California',
      preferredLanguage: 'English',
      context: { preferredLanguage: 'English', skipTranslation: true, jurisdictionName: 'United States', legalSystem: 'Common Law' },
    });
    expect(payload.conversationHistory!.map((m) => m.content)).toEqual([
      getVertical('legal')!.welcomeMessage,
      'Jurisdiction set to California, United States (Common Law). What legal question can I help you with?',
    ]);
    serverSays(() => socket.done(payload.requestId, makeReplyData({ vertical: 'legal', response: 'General information.' })));
    expect(messages()[messages().length - 1]).toHaveTextContent('General information.');
  });

  it('a country without sub-regions sends no subJurisdiction', async () => {
    const { user, socket } = await openLegal();
    await user.click(within(dialog()).getByRole('button', { name: /Japan/ }));
    await user.type(input(), 'What is the notice period?{Enter}');
    expect(socket.lastSend().jurisdiction).toBe('JP');
    expect(socket.lastSend()).not.toHaveProperty('subJurisdiction');
    expect(socket.lastSend().context).toMatchObject({ jurisdictionName: 'Japan', legalSystem: 'Civil Law' });
  });

  it('keeps the chosen jurisdiction when the visitor leaves the legal tab and comes back', async () => {
    const { user } = await openLegal();
    await user.click(within(dialog()).getByRole('button', { name: /Japan/ }));
    await user.click(screen.getByRole('tab', { name: /Customer Support/ }));
    await user.click(screen.getByRole('tab', { name: /Legal Advisor/ }));
    expect(queryDialog()).not.toBeInTheDocument();
    expect(badge()).toHaveTextContent('Japan');
    // The Japan conversation is still there: the legal welcome and the jurisdiction's.
    expect(messages()).toHaveLength(2);
    expect(messages()[1]).toHaveTextContent('Jurisdiction set to Japan (Civil Law).');
  });
});
