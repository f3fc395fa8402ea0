import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import ConfigurationTab from './ConfigurationTab';
import { deferred, fail, fakeConfigServer, makeAgent, ok } from './testing/fake-config-server';

function renderTab() {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const user = userEvent.setup();
  render(
    <QueryClientProvider client={client}>
      <ConfigurationTab />
    </QueryClientProvider>,
  );
  return { user };
}

async function openDialog(user: ReturnType<typeof userEvent.setup>, agentName = 'Employee Support Agent') {
  await user.click(await screen.findByRole('button', { name: `Configure ${agentName}` }));
  return screen.getByRole('dialog');
}

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe('ConfigurationTab', () => {
  it("lists every agent with its enabled dot, name, id, provider, model and masked key under 'Agent API Key Management'", async () => {
    fakeConfigServer();
    renderTab();
    expect(screen.getByRole('heading', { name: 'System Configuration' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Validate Config' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Export Config' })).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: 'Agent API Key Management' })).toBeInTheDocument();

    const hr = await screen.findByRole('listitem', { name: 'Employee Support Agent' });
    expect(within(hr).getByRole('img', { name: 'Enabled' })).toBeInTheDocument();
    expect(within(hr).getByText('hr-agent')).toBeInTheDocument();
    expect(within(hr).getByText('openai')).toBeInTheDocument();
    expect(within(hr).getByText('gpt-4o-mini')).toBeInTheDocument();
    expect(within(hr).getByText('sk-...abcd')).toBeInTheDocument();
    expect(within(hr).queryByText(/^(Valid|Invalid)$/)).not.toBeInTheDocument();

    const sales = screen.getByRole('listitem', { name: 'Sales Advisor Agent' });
    expect(within(sales).getByRole('img', { name: 'Disabled' })).toBeInTheDocument();
    expect(within(sales).getByText('No API key')).toBeInTheDocument();
    expect(screen.getAllByRole('listitem')).toHaveLength(3);
  });

  it('opens the Configure dialog with a copy of the agent, every field, and the defaults (temperature 0.7 when unset)', async () => {
    fakeConfigServer();
    const { user } = renderTab();
    const dialog = await openDialog(user, 'Sales Advisor Agent');
    expect(within(dialog).getByLabelText('Agent Name')).toHaveValue('Sales Advisor Agent');
    const vertical = within(dialog).getByLabelText('Vertical');
    expect(vertical).toHaveValue('sales');
    expect(within(vertical).getByRole('option', { name: 'Universal' })).toBeInTheDocument();
    expect(within(vertical).getByRole('option', { name: 'Customer Service' })).toBeInTheDocument();
    expect(within(vertical).getByRole('option', { name: 'HR' })).toBeInTheDocument();
    const provider = within(dialog).getByLabelText('Provider');
    expect(provider).toHaveValue('anthropic');
    for (const name of ['openai', 'anthropic', 'azure']) expect(within(provider).getByRole('option', { name })).toBeInTheDocument();
    expect(within(dialog).getByLabelText('Model')).toHaveValue('claude-haiku-4-5');
    const key = within(dialog).getByLabelText('API Key');
    expect(key).toHaveAttribute('type', 'password');
    expect(key).toHaveValue('');
    const temperature = within(dialog).getByLabelText('Temperature');
    expect(temperature).toHaveValue(0.7);
    expect(temperature).toHaveAttribute('min', '0');
    expect(temperature).toHaveAttribute('max', '1');
    expect(temperature).toHaveAttribute('step', '0.1');
    expect(within(dialog).getByLabelText('Max Tokens')).toHaveValue(2000);
    expect(within(dialog).getByLabelText('Timeout (ms)')).toHaveValue(30000);
    expect(within(dialog).getByLabelText('System Prompt')).toHaveAttribute('rows', '3');
    expect(within(dialog).getByRole('switch', { name: /Agent Status/ })).not.toBeChecked();
    expect(within(dialog).getByRole('button', { name: 'Cancel' })).toBeInTheDocument();
    expect(within(dialog).getByRole('button', { name: 'Save Configuration' })).toBeInTheDocument();
  });

  it.each([
    ['Cancel', 'Cancel'],
    ['the close icon', 'Close'],
  ])('%s discards the edits and saves nothing', async (_how, button) => {
    const server = fakeConfigServer();
    const { user } = renderTab();
    let dialog = await openDialog(user);
    await user.clear(within(dialog).getByLabelText('Model'));
    await user.type(within(dialog).getByLabelText('Model'), 'gpt-4.1');
    await user.click(within(dialog).getByRole('button', { name: button }));
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(server.callsTo('PUT /api/config/agents/hr-agent')).toHaveLength(0);
    dialog = await openDialog(user);
    expect(within(dialog).getByLabelText('Model')).toHaveValue('gpt-4o-mini');
  });

  it("'Save Configuration' saves the edited agent to the server (no key unless one was typed), closes, and shows the new model", async () => {
    const server = fakeConfigServer();
    const { user } = renderTab();
    const dialog = await openDialog(user);
    await user.clear(within(dialog).getByLabelText('Model'));
    await user.type(within(dialog).getByLabelText('Model'), 'gpt-4.1-mini');
    await user.clear(within(dialog).getByLabelText('System Prompt'));
    await user.type(within(dialog).getByLabelText('System Prompt'), 'You are Zed.');
    await user.clear(within(dialog).getByLabelText('Max Tokens'));
    await user.clear(within(dialog).getByLabelText('Temperature'));
    await user.type(within(dialog).getByLabelText('Temperature'), '0');
    await user.click(within(dialog).getByRole('button', { name: 'Save Configuration' }));

    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    const [put] = server.callsTo('PUT /api/config/agents/hr-agent');
    expect(put.body).toMatchObject({ systemPrompt: 'You are Zed.', timeout: 30000, enabled: true, llmConfig: { model: 'gpt-4.1-mini', maxTokens: 2000, temperature: 0.7 } });
    expect(put.body.llmConfig).not.toHaveProperty('apiKey');
    const hr = screen.getByRole('listitem', { name: 'Employee Support Agent' });
    expect(within(hr).getByText('gpt-4.1-mini')).toBeInTheDocument();
  });

  it('sends a newly typed key, and the list shows its mask', async () => {
    const server = fakeConfigServer();
    const { user } = renderTab();
    const dialog = await openDialog(user);
    await user.type(within(dialog).getByLabelText('API Key'), 'sk-new-secret-key-9876');
    await user.click(within(dialog).getByRole('button', { name: 'Save Configuration' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(server.callsTo('PUT /api/config/agents/hr-agent')[0].body.llmConfig.apiKey).toBe('sk-new-secret-key-9876');
    expect(within(screen.getByRole('listitem', { name: 'Employee Support Agent' })).getByText('sk-...9876')).toBeInTheDocument();
  });

  it('a refused save keeps the dialog open and says why', async () => {
    const server = fakeConfigServer();
    server.on('PUT /api/config/agents/hr-agent', () => fail(400, 'validation_failed', 'The model is not available in this region.'));
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const { user } = renderTab();
    const dialog = await openDialog(user);
    await user.click(within(dialog).getByRole('button', { name: 'Save Configuration' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent('The configuration could not be saved: The model is not available in this region.');
    expect(screen.getByRole('dialog')).toBeInTheDocument();
    expect(console.error).toHaveBeenCalled();
  });

  it("checks the agent with the server's contract before saving: temperature 5 says 'Temperature must be between 0 and 1' and sends nothing", async () => {
    const server = fakeConfigServer();
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const { user } = renderTab();
    const dialog = await openDialog(user);
    await user.clear(within(dialog).getByLabelText('Temperature'));
    await user.type(within(dialog).getByLabelText('Temperature'), '5');
    await user.click(within(dialog).getByRole('button', { name: 'Save Configuration' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent('The configuration could not be saved: Temperature must be between 0 and 1');
    expect(server.callsTo('PUT /api/config/agents/hr-agent')).toEqual([]);
    await user.clear(within(dialog).getByLabelText('Timeout (ms)'));
    await user.type(within(dialog).getByLabelText('Timeout (ms)'), '50');
    await user.clear(within(dialog).getByLabelText('Temperature'));
    await user.type(within(dialog).getByLabelText('Temperature'), '0.4');
    await user.click(within(dialog).getByRole('button', { name: 'Save Configuration' }));
    await waitFor(() => expect(within(dialog).getByRole('alert')).toHaveTextContent('Timeout (ms) must be a whole number from 100 to 3,600,000'));
    expect(server.callsTo('PUT /api/config/agents/hr-agent')).toEqual([]);
  });

  it("refuses a max response length of 0 in the contract's words before saving the settings", async () => {
    const server = fakeConfigServer();
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const { user } = renderTab();
    await screen.findByRole('heading', { name: 'Global Settings' });
    await user.clear(screen.getByLabelText('Max Response Length'));
    await user.type(screen.getByLabelText('Max Response Length'), '0');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('The settings could not be saved: Max Response Length must be a whole number from 1 to 200,000');
    expect(server.callsTo('PUT /api/config/global')).toEqual([]);
  });

  describe('API key test', () => {
    it('untested -> testing (spinner, disabled) -> Valid, shown in the dialog and the list', async () => {
      const server = fakeConfigServer();
      const reply = deferred(ok({ isValid: true, reason: 'OpenAI accepted the key (8 models available).' }));
      server.on('POST /api/config/test-api-key', reply.handler);
      const { user } = renderTab();
      const dialog = await openDialog(user);
      await user.click(within(dialog).getByRole('button', { name: 'Test API key' }));
      const busy = within(dialog).getByRole('button', { name: 'Testing API key' });
      expect(busy).toBeDisabled();
      expect(busy.querySelector('.config-spin')).not.toBeNull();
      expect(server.callsTo('POST /api/config/test-api-key')[0].body).toMatchObject({ agentId: 'hr-agent', provider: 'openai', model: 'gpt-4o-mini' });
      expect(server.callsTo('POST /api/config/test-api-key')[0].body).not.toHaveProperty('apiKey');
      reply.release();
      expect(await within(dialog).findByText('Valid')).toBeInTheDocument();
      expect(within(dialog).getByRole('button', { name: 'Test API key' })).toBeEnabled();
      await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
      expect(within(screen.getByRole('listitem', { name: 'Employee Support Agent' })).getByText('Valid')).toBeInTheDocument();
    });

    it('tests a typed key; a key the provider refuses is Invalid', async () => {
      const server = fakeConfigServer();
      server.on('POST /api/config/test-api-key', () => ok({ isValid: false, reason: 'The provider refused the key (HTTP 401).' }));
      const { user } = renderTab();
      const dialog = await openDialog(user);
      await user.type(within(dialog).getByLabelText('API Key'), 'sk-typed-key-12345678');
      await user.click(within(dialog).getByRole('button', { name: 'Test API key' }));
      expect(await within(dialog).findByText('Invalid')).toBeInTheDocument();
      expect(within(dialog).getByText('The provider refused the key (HTTP 401).')).toBeInTheDocument();
      expect(server.callsTo('POST /api/config/test-api-key')[0].body.apiKey).toBe('sk-typed-key-12345678');
    });

    it('a failed test call also gives Invalid', async () => {
      const server = fakeConfigServer();
      server.on('POST /api/config/test-api-key', () => 'network-error');
      vi.spyOn(console, 'error').mockImplementation(() => undefined);
      const { user } = renderTab();
      const dialog = await openDialog(user);
      await user.click(within(dialog).getByRole('button', { name: 'Test API key' }));
      expect(await within(dialog).findByText('Invalid')).toBeInTheDocument();
    });
  });

  it("'Validate Config' shows the problems the server found", async () => {
    const server = fakeConfigServer();
    server.on('GET /api/config/validate', () =>
      ok({
        valid: false,
        checkedAt: '2026-01-01T00:00:00.000Z',
        problems: [
          { severity: 'error', agentId: 'sales-agent', field: 'llmConfig.apiKey', message: 'Sales Advisor Agent (sales-agent): no API key is set for Anthropic.' },
          { severity: 'warning', field: 'verticals.legal', message: 'Legal Advisor has no enabled agent of its own.' },
        ],
      }),
    );
    const { user } = renderTab();
    await screen.findByRole('listitem', { name: 'Employee Support Agent' });
    await user.click(screen.getByRole('button', { name: 'Validate Config' }));
    const panel = await screen.findByRole('status', { name: 'Validation' });
    expect(within(panel).getByText('Sales Advisor Agent (sales-agent): no API key is set for Anthropic.')).toBeInTheDocument();
    expect(within(panel).getByText('Legal Advisor has no enabled agent of its own.')).toBeInTheDocument();
  });

  it("'Validate Config' says so when nothing is wrong", async () => {
    fakeConfigServer();
    const { user } = renderTab();
    await screen.findByRole('listitem', { name: 'Employee Support Agent' });
    await user.click(screen.getByRole('button', { name: 'Validate Config' }));
    expect(await screen.findByText('No problems found.')).toBeInTheDocument();
  });

  it("'Export Config' downloads the JSON file the server names", async () => {
    fakeConfigServer();
    const createObjectURL = vi.fn(() => 'blob:config');
    vi.stubGlobal('URL', Object.assign(URL, { createObjectURL, revokeObjectURL: vi.fn() }));
    const clicked: Array<{ href: string; download: string }> = [];
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      clicked.push({ href: this.href, download: this.download });
    });
    const { user } = renderTab();
    await screen.findByRole('listitem', { name: 'Employee Support Agent' });
    await user.click(screen.getByRole('button', { name: 'Export Config' }));
    await waitFor(() => expect(clicked).toEqual([{ href: 'blob:config', download: 'support-assistant-config-2026-01-01.json' }]));
    const blob = (createObjectURL.mock.calls[0] as unknown as [Blob])[0];
    const file = JSON.parse(await blob.text());
    expect(file.format).toBe('support-assistant-config');
  });

  it("'Global Settings' and 'Security & System Settings' save together to the server", async () => {
    const server = fakeConfigServer();
    const { user } = renderTab();
    await screen.findByRole('heading', { name: 'Global Settings' });
    expect(screen.getByRole('heading', { name: 'Security & System Settings' })).toBeInTheDocument();
    expect(screen.getByLabelText('Response Temperature')).toHaveValue(0.7);
    expect(screen.getByLabelText('Max Response Length')).toHaveValue(500);
    const language = screen.getByLabelText('Default Language');
    expect(within(language).getAllByRole('option').map((o) => o.textContent)).toEqual(['English', 'Spanish', 'French', 'German']);
    for (const name of ['Enable Customer Service', 'Enable HR Support', 'Enable Analytics']) expect(screen.getByRole('switch', { name })).toBeChecked();
    expect(screen.getByRole('switch', { name: 'Debug Mode' })).not.toBeChecked();

    await user.selectOptions(language, 'fr');
    await user.clear(screen.getByLabelText('Max Response Length'));
    await user.type(screen.getByLabelText('Max Response Length'), '800');
    await user.click(screen.getByRole('switch', { name: 'Enable HR Support' }));
    await user.click(screen.getByRole('switch', { name: 'Enable Analytics' }));
    await user.click(screen.getByRole('switch', { name: 'Debug Mode' }));
    await user.click(screen.getByRole('button', { name: 'Save' }));

    expect(await screen.findByText('Settings saved.')).toBeInTheDocument();
    const [put] = server.callsTo('PUT /api/config/global');
    expect(put.body).toMatchObject({ defaultLanguage: 'fr', maxResponseLength: 800, enableAnalytics: false, debugMode: true, verticals: { hr: false, 'customer-service': true } });
  });

  it('a failed load is logged and leaves the list empty', async () => {
    const server = fakeConfigServer();
    server.on('GET /api/config', () => fail(500, 'internal_error', 'Something went wrong on our side.'));
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    renderTab();
    expect(await screen.findByText('The configuration could not be loaded.')).toBeInTheDocument();
    expect(screen.queryAllByRole('listitem')).toHaveLength(0);
    expect(console.error).toHaveBeenCalledWith('Config load failed', expect.anything());
  });

  it('an agent whose stored key cannot be decrypted says so', async () => {
    fakeConfigServer({ agents: [makeAgent({ keyStatus: 'unreadable', keyError: 'The stored API key cannot be decrypted.', llmConfig: { apiKey: '' } })] });
    renderTab();
    const hr = await screen.findByRole('listitem', { name: 'Employee Support Agent' });
    expect(within(hr).getByText('Key unreadable')).toBeInTheDocument();
  });
});
