import { act, screen, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { LANGUAGES } from '@shared/catalog/languages';
import { en, loadAllStrings, stringsFor } from './i18n';
import { fakeFetch, renderChat, serverSays } from './testing/render-chat';
import { makeReplyData } from './testing/factories';

/** Every text of a dictionary, flattened (functions called with a marker). */
function texts(value: unknown, path = ''): [string, string][] {
  if (typeof value === 'string') return [[path, value]];
  if (typeof value === 'function') return [[path, String((value as (...a: unknown[]) => unknown)('X', 'Y'))]];
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => texts(v, path ? `${path}.${k}` : k));
  return [];
}

const DICTIONARIES = await loadAllStrings();

const input = () => screen.getByRole('textbox');

/** Sends a question as a visitor pasting it and pressing Enter (typing long questions key by key is slow on a busy machine). */
async function send(user: ReturnType<typeof renderChat>['user'], question: string): Promise<void> {
  await user.click(input());
  await user.paste(question);
  await user.keyboard('{Enter}');
}

describe('interface languages', () => {
  it('has a dictionary for each of the 11 offered languages, with every text of the English one', () => {
    expect(Object.keys(DICTIONARIES).sort()).toEqual(LANGUAGES.map((l) => l.code).sort());
    const keys = texts(en).map(([k]) => k);
    for (const code of Object.keys(DICTIONARIES)) expect(texts(DICTIONARIES[code]).map(([k]) => k)).toEqual(keys);
  });

  it('loads a dictionary other than English only when asked: English until it has arrived', async () => {
    vi.resetModules();
    const fresh = await import('./i18n');
    expect(fresh.stringsFor('de')).toBe(fresh.en);
    const de = await fresh.loadStrings('de');
    expect(de.chat.send).not.toBe(fresh.en.chat.send);
    expect(fresh.stringsFor('de')).toBe(de);
    expect(await fresh.loadStrings('xx')).toBe(fresh.en);
  });

  it('translates the texts (other than names kept as they are: the brand, codes, Online)', () => {
    const english = new Map(texts(en));
    for (const language of LANGUAGES.filter((l) => l.code !== 'en')) {
      const same = texts(DICTIONARIES[language.code]).filter(([k, v]) => english.get(k) === v && !k.startsWith('brand.name'));
      // A few words are the same in some languages (Online, Sources, Conversation, India, Japan...).
      expect({ code: language.code, untranslated: same.length <= 12 ? 'few' : same.map(([k]) => k) }).toEqual({ code: language.code, untranslated: 'few' });
    }
  });

  it('choosing Spanish changes the interface, the page language and is remembered', async () => {
    const { user, unmount } = renderChat();
    await user.selectOptions(screen.getByRole('combobox', { name: 'Language' }), 'es');
    const es = stringsFor('es');
    expect(document.documentElement.lang).toBe('es');
    expect(document.documentElement.dir).toBe('ltr');
    expect(screen.getByRole('tab', { name: new RegExp(es.verticals.hr.name) })).toBeInTheDocument();
    expect(screen.getByRole('heading', { level: 2, name: es.verticals['customer-service'].name })).toBeInTheDocument();
    expect(input()).toHaveAttribute('placeholder', es.chat.placeholder);
    expect(screen.getByRole('button', { name: es.chat.send })).toBeInTheDocument();
    expect(screen.getByRole('log')).toHaveTextContent(es.verticals['customer-service'].welcome);
    expect(within(screen.getByRole('contentinfo')).getByText(es.footer.availability)).toBeInTheDocument();
    unmount();
    expect(document.documentElement.lang).toBe('en');
    renderChat();
    expect(document.documentElement.lang).toBe('es');
    expect(screen.getByRole('combobox', { name: es.chat.language })).toHaveValue('es');
  });

  it("a failed reply's reason is translated when the page knows its error code; an unknown code keeps the server's text", async () => {
    const { user, socket } = renderChat();
    await user.selectOptions(screen.getByRole('combobox', { name: 'Language' }), 'es');
    const es = stringsFor('es');
    const lastAgent = () => [...screen.getByRole('log').querySelectorAll('.message-agent')].pop() as HTMLElement;
    const failWith = async (code: string, message: string) => {
      await user.type(input(), 'Hola{Enter}');
      serverSays(() => socket.error(socket.lastSend().requestId, message, code));
    };
    await failWith('vertical_disabled', 'Customer Support is not available right now.');
    expect(lastAgent()).toHaveTextContent(es.errors.apology(es.errorCodes.vertical_disabled));
    expect(lastAgent()).toHaveTextContent('Lo siento, se produjo un error: Este asistente no está disponible en este momento. Inténtelo de nuevo.');
    await failWith('budget_exhausted', 'The assistant has reached its limit for this month.');
    expect(lastAgent()).toHaveTextContent(es.errors.apology(es.errorCodes.budget_exhausted));
    await failWith('provider_timeout', 'The AI provider did not respond in time');
    expect(lastAgent()).toHaveTextContent(es.errors.apology(es.errorCodes.provider_timeout));
    await failWith('some_new_code', 'A reason only the server knows.');
    expect(lastAgent()).toHaveTextContent(es.errors.apology('A reason only the server knows'));
    // In Arabic too.
    await user.selectOptions(screen.getByRole('combobox', { name: es.chat.language }), 'ar');
    await failWith('chat_timeout', 'The reply took too long');
    expect(lastAgent()).toHaveTextContent(stringsFor('ar').errors.apology(stringsFor('ar').errorCodes.chat_timeout));
    // English keeps the server's own words (it may name the vertical).
    await user.selectOptions(screen.getByRole('combobox', { name: stringsFor('ar').chat.language }), 'en');
    await failWith('vertical_disabled', 'Customer Support is not available right now.');
    expect(lastAgent()).toHaveTextContent('I apologize, but I encountered an error: Customer Support is not available right now. Please try again.');
  });

  it('Arabic sets dir="rtl" on <html>', async () => {
    const { user } = renderChat();
    await user.selectOptions(screen.getByRole('combobox', { name: 'Language' }), 'ar');
    expect(document.documentElement.lang).toBe('ar');
    expect(document.documentElement.dir).toBe('rtl');
    await user.selectOptions(screen.getByRole('combobox', { name: stringsFor('ar').chat.language }), 'en');
    expect(document.documentElement.dir).toBe('ltr');
  });

  it('translates the legal flow: modal, sub-region step with the right article, notice and welcome', async () => {
    const { user } = renderChat();
    await user.selectOptions(screen.getByRole('combobox', { name: 'Language' }), 'fr');
    const fr = stringsFor('fr');
    await user.click(screen.getByRole('tab', { name: new RegExp(fr.verticals.legal.name) }));
    const dialog = screen.getByRole('dialog', { name: fr.legal.select });
    await user.click(within(dialog).getByRole('button', { name: new RegExp(fr.legal.jurisdictions.AE.name) }));
    expect(within(dialog).getByRole('option', { name: 'Choisissez un émirat...' })).toBeInTheDocument();
    await user.selectOptions(within(dialog).getByRole('combobox'), 'Dubai');
    await user.click(within(dialog).getByRole('button', { name: fr.legal.continue }));
    expect(screen.getByRole('note')).toHaveTextContent(fr.legal.jurisdictions.AE.warning!);
    expect(screen.getByRole('log')).toHaveTextContent(fr.legal.welcome(`Dubai, ${fr.legal.jurisdictions.AE.name}`, fr.legal.legalSystems['Mixed civil/Sharia/common']));
  });

  it("English says 'Choose an emirate...' and 'Choose a state...'", async () => {
    const { user } = renderChat();
    await user.click(screen.getByRole('tab', { name: /Legal Advisor/ }));
    const dialog = screen.getByRole('dialog');
    await user.click(within(dialog).getByRole('button', { name: /United Arab Emirates/ }));
    expect(within(dialog).getByRole('option', { name: 'Choose an emirate...' })).toBeInTheDocument();
    await user.click(within(dialog).getByRole('button', { name: 'Back' }));
    await user.click(within(dialog).getByRole('button', { name: /United States/ }));
    expect(within(dialog).getByRole('option', { name: 'Choose a state...' })).toBeInTheDocument();
  });

  it("the administrators' default language applies until the visitor chooses one", async () => {
    const { fetch } = fakeFetch(async (url) => {
      if (url === '/api/public/settings') {
        return new Response(JSON.stringify({ success: true, data: { defaultLanguage: 'de', verticals: [], enabledVerticals: [] } }), { status: 200 });
      }
      throw new TypeError('Failed to fetch');
    });
    renderChat({ fetch });
    await act(async () => undefined);
    expect(await screen.findByRole('button', { name: stringsFor('de').chat.send })).toBeInTheDocument();
    expect(document.documentElement.lang).toBe('de');
  });

  it('until the visitor picks a language, a question written in another one is answered in it and the page follows; once picked, it stays', async () => {
    const { user, socket } = renderChat();
    await send(user, '¿Cuántos días de vacaciones tengo?');
    expect(socket.lastSend()).toMatchObject({ query: '¿Cuántos días de vacaciones tengo?', preferredLanguage: 'Spanish' });
    expect(screen.getByRole('combobox', { name: stringsFor('es').chat.language })).toHaveValue('es');
    expect(document.documentElement.lang).toBe('es');
    serverSays(() => socket.done(socket.lastSend().requestId, makeReplyData({ response: 'Aquí está.' })));
    // Followed, not chosen: the next question surely written in another language moves it again.
    await send(user, 'Quantos dias de férias eu tenho?');
    expect(socket.lastSend()).toMatchObject({ preferredLanguage: 'Portuguese' });
    expect(document.documentElement.lang).toBe('pt');
    serverSays(() => socket.done(socket.lastSend().requestId, makeReplyData({ response: 'Certo.' })));
    // Chosen by the visitor: a question in another language keeps the chosen reply language.
    await user.selectOptions(screen.getByRole('combobox', { name: stringsFor('pt').chat.language }), 'en');
    await send(user, 'Comment réinitialiser mon mot de passe ?');
    expect(socket.lastSend()).toMatchObject({ preferredLanguage: 'English' });
    expect(document.documentElement.lang).toBe('en');
  });

  it.each(['Can I return a sofa?', 'Can I expense a taxi?', 'Can I bring a guest?'])(
    'an English question whose "I" and "a" are Italian words too keeps the English interface: %s',
    async (question) => {
      const { user, socket } = renderChat();
      await send(user, question);
      expect(socket.lastSend()).toMatchObject({ query: question, preferredLanguage: 'English' });
      expect(screen.getByRole('combobox', { name: 'Language' })).toHaveValue('en');
      expect(document.documentElement.lang).toBe('en');
    },
  );

  it('a language the page followed by mistake does not stick: the next English question brings English back, after a reload too', async () => {
    const first = renderChat();
    await send(first.user, 'Quanti giorni di ferie ho?');
    expect(document.documentElement.lang).toBe('it');
    first.unmount();
    const { user, socket } = renderChat();
    expect(screen.getByRole('combobox', { name: stringsFor('it').chat.language })).toHaveValue('it');
    await send(user, 'How many vacation days do I get?');
    expect(socket.lastSend()).toMatchObject({ preferredLanguage: 'English' });
    expect(screen.getByRole('combobox', { name: 'Language' })).toHaveValue('en');
  });

  it('a word or two shared by several languages switches nothing', async () => {
    const { user, socket } = renderChat();
    await send(user, 'ok');
    expect(socket.lastSend()).toMatchObject({ query: 'ok', preferredLanguage: 'English' });
    expect(document.documentElement.lang).toBe('en');
  });

  it('the language the page switched to is remembered (a reload shows the conversation in it)', async () => {
    const { user, unmount } = renderChat();
    await send(user, 'Quantos dias de férias eu tenho?');
    expect(document.documentElement.lang).toBe('pt');
    unmount();
    renderChat();
    expect(screen.getByRole('combobox', { name: stringsFor('pt').chat.language })).toHaveValue('pt');
  });
});
