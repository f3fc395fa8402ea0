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

  it('opens the Configure dialog with a copy of the agent, every field, and the defaults (temperature empty when unset: the global one applies)', async () => {
    fakeConfigServer();
    const { user } = renderTab();
    const dialog = await openDialog(user, 'Sales Advisor Agent');
    expect(within(dialog).getByLabelText('Agent Name')).toHaveValue('Sales Advisor Agent');
    const vertical = within(dialog).getByLabelText('Vertical');
    expect(vertical).toHaveValue('sales');
    expect(within(vertical).getByRole('option', { name: 'Universal' })).toBeInTheDocument();
    expect(within(vertical).getByRole('option', { name: 'Customer Support' })).toBeInTheDocument();
    expect(within(vertical).getByRole('option', { name: 'Employee Support' })).toBeInTheDocument();
    const provider = within(dialog).getByLabelText('Provider');
    expect(provider).toHaveValue('anthropic');
    for (const name of ['openai', 'anthropic', 'azure']) expect(within(provider).getByRole('option', { name })).toBeInTheDocument();
    expect(within(dialog).getByLabelText('Model')).toHaveValue('claude-haiku-4-5');
    const key = within(dialog).getByLabelText('API Key');
    expect(key).toHaveAttribute('type', 'password');
    expect(key).toHaveValue('');
    const temperature = within(dialog).getByLabelText('Temperature');
    expect(temperature).toHaveValue(null);
    expect(temperature).toHaveAttribute('placeholder', 'Global (0.7)');
    expect(temperature).toHaveAccessibleDescription('Empty: the global Response Temperature applies. 0 to 1.');
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
    // 0 is a temperature like any other (it used to become 0.7).
    await user.type(within(dialog).getByLabelText('Temperature'), '0');
    await user.click(within(dialog).getByRole('button', { name: 'Save Configuration' }));

    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    const [put] = server.callsTo('PUT /api/config/agents/hr-agent');
    expect(put.body).toMatchObject({ systemPrompt: 'You are Zed.', timeout: 30000, enabled: true, llmConfig: { model: 'gpt-4.1-mini', maxTokens: 2000, temperature: 0 } });
    expect(await screen.findByText('Employee Support Agent: configuration saved.')).toBeInTheDocument();
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

  it("bounds the temperature to 0..1 in the field, in the contract's words without an internal path, and sends nothing", async () => {
    const server = fakeConfigServer();
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const { user } = renderTab();
    const dialog = await openDialog(user);
    const temperature = within(dialog).getByLabelText('Temperature');
    await user.clear(temperature);
    await user.type(temperature, '1.5');
    expect(temperature).toHaveAttribute('aria-invalid', 'true');
    expect(temperature).toHaveAccessibleDescription('Temperature must be between 0 and 1');
    expect(within(dialog).queryByText(/llmConfig/)).not.toBeInTheDocument();
    expect(within(dialog).getByRole('button', { name: 'Save Configuration' })).toBeDisabled();
    await user.click(within(dialog).getByRole('button', { name: 'Save Configuration' }));
    expect(server.callsTo('PUT /api/config/agents/hr-agent')).toEqual([]);
    await user.clear(within(dialog).getByLabelText('Timeout (ms)'));
    await user.type(within(dialog).getByLabelText('Timeout (ms)'), '50');
    await user.clear(temperature);
    await user.type(temperature, '0.4');
    expect(temperature).not.toHaveAttribute('aria-invalid');
    await user.click(within(dialog).getByRole('button', { name: 'Save Configuration' }));
    await waitFor(() => expect(within(dialog).getByRole('alert')).toHaveTextContent('Timeout (ms) must be a whole number from 100 to 3,600,000'));
    expect(server.callsTo('PUT /api/config/agents/hr-agent')).toEqual([]);
  });

  it('an emptied temperature is sent as null: the global Response Temperature applies', async () => {
    const server = fakeConfigServer();
    const { user } = renderTab();
    const dialog = await openDialog(user);
    await user.clear(within(dialog).getByLabelText('Temperature'));
    await user.click(within(dialog).getByRole('button', { name: 'Save Configuration' }));
    await waitFor(() => expect(server.callsTo('PUT /api/config/agents/hr-agent')).toHaveLength(1));
    expect(server.callsTo('PUT /api/config/agents/hr-agent')[0].body.llmConfig.temperature).toBeNull();
  });

  it('Validate: warnings alone show in an amber box, not the green one', async () => {
    const server = fakeConfigServer();
    server.on('GET /api/config/validate', () => ok({ valid: true, problems: [{ severity: 'warning', field: 'llmConfig.maxTokens', agentId: 'hr-agent', message: 'max tokens 2000 is above the global max response length (500), which applies instead.' }], checkedAt: new Date().toISOString() }));
    const { user } = renderTab();
    await screen.findByRole('listitem', { name: 'Employee Support Agent' });
    await user.click(screen.getByRole('button', { name: 'Validate Config' }));
    const panel = await screen.findByRole('status', { name: 'Validation' });
    expect(panel).toHaveClass('is-warning');
    expect(panel).not.toHaveClass('is-valid');
    expect(panel).toHaveTextContent('Warning');
  });

  it("'Add agent' creates one (name, vertical, provider), lists it and opens its Configure dialog", async () => {
    const server = fakeConfigServer();
    const { user } = renderTab();
    await screen.findByRole('listitem', { name: 'Employee Support Agent' });
    await user.click(screen.getByRole('button', { name: 'Add agent' }));
    const dialog = screen.getByRole('dialog', { name: 'Add an agent' });
    await user.type(within(dialog).getByLabelText('Agent Name'), 'Billing Helper');
    await user.selectOptions(within(dialog).getByLabelText('Vertical'), 'Customer Support');
    await user.selectOptions(within(dialog).getByLabelText('Provider'), 'anthropic');
    await user.click(within(dialog).getByRole('button', { name: 'Create agent' }));
    expect(await screen.findByRole('dialog', { name: 'Configure Billing Helper' })).toBeInTheDocument();
    expect(server.callsTo('POST /api/config/agents')[0].body).toEqual({ agentName: 'Billing Helper', vertical: 'customer-service', llmConfig: { provider: 'anthropic' } });
    expect(screen.getByRole('listitem', { name: 'Billing Helper' })).toBeInTheDocument();
    expect(screen.getByText('Billing Helper: agent created.')).toBeInTheDocument();
  });

  it("'Add agent' refused by the server shows its reason in the dialog", async () => {
    const server = fakeConfigServer();
    server.on('POST /api/config/agents', () => fail(409, 'conflict', 'Agent hr-agent already exists.'));
    const { user } = renderTab();
    await screen.findByRole('listitem', { name: 'Employee Support Agent' });
    await user.click(screen.getByRole('button', { name: 'Add agent' }));
    const dialog = screen.getByRole('dialog', { name: 'Add an agent' });
    await user.type(within(dialog).getByLabelText('Agent Name'), 'HR');
    await user.click(within(dialog).getByRole('button', { name: 'Create agent' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent('The agent could not be created: Agent hr-agent already exists.');
  });

  it('Remove asks first, then deletes the agent and takes its card away; Cancel keeps it', async () => {
    const server = fakeConfigServer();
    const { user } = renderTab();
    await screen.findByRole('listitem', { name: 'Sales Advisor Agent' });
    await user.click(screen.getByRole('button', { name: 'Remove Sales Advisor Agent' }));
    let dialog = screen.getByRole('dialog', { name: 'Remove agent?' });
    expect(dialog).toHaveAccessibleDescription(/Sales Advisor Agent \(sales-agent\)/);
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(server.callsTo('DELETE /api/config/agents/sales-agent')).toEqual([]);
    await user.click(screen.getByRole('button', { name: 'Remove Sales Advisor Agent' }));
    dialog = screen.getByRole('dialog', { name: 'Remove agent?' });
    await user.click(within(dialog).getByRole('button', { name: 'Remove' }));
    await waitFor(() => expect(screen.queryByRole('listitem', { name: 'Sales Advisor Agent' })).not.toBeInTheDocument());
    expect(server.callsTo('DELETE /api/config/agents/sales-agent')).toHaveLength(1);
    expect(screen.getByText('Sales Advisor Agent: agent removed.')).toBeInTheDocument();
  });

  it("an agent of a switched-off vertical has an off dot that says why", async () => {
    const server = fakeConfigServer();
    server.state.global.verticals.hr = false;
    renderTab();
    const hr = await screen.findByRole('listitem', { name: 'Employee Support Agent' });
    const dot = within(hr).getByRole('img', { name: 'Off: its vertical is switched off' });
    expect(dot).toHaveClass('is-off');
  });

  it("refuses a max response length of 0 in the contract's words before saving the settings", async () => {
    const server = fakeConfigServer();
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const { user } = renderTab();
    await screen.findByRole('heading', { name: 'Global Settings' });
    await user.clear(screen.getByLabelText('Max Response Length'));
    await user.type(screen.getByLabelText('Max Response Length'), '0');
    await user.click(screen.getByRole('button', { name: 'Save global settings' }));
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

    it('the local provider needs no key: no key field, no Test button, no badge; the model resets to its default', async () => {
      const server = fakeConfigServer();
      const { user } = renderTab();
      const dialog = await openDialog(user);
      await user.selectOptions(within(dialog).getByLabelText('Provider'), 'local');
      expect(within(dialog).getByText('The local provider runs on this server and needs no API key.')).toBeInTheDocument();
      expect(within(dialog).queryByRole('button', { name: 'Test API key' })).not.toBeInTheDocument();
      expect(within(dialog).queryByText(/^(Valid|Invalid)$/)).not.toBeInTheDocument();
      expect(within(dialog).getByLabelText('Model')).toHaveValue('knowledge-responder');
      expect(server.callsTo('POST /api/config/test-api-key')).toEqual([]);
    });

    it("switching provider clears the previous test's result and puts the new provider's default model", async () => {
      const server = fakeConfigServer();
      server.on('POST /api/config/test-api-key', () => ok({ isValid: true, reason: 'OpenAI accepted the key.' }));
      const { user } = renderTab();
      const dialog = await openDialog(user);
      await user.click(within(dialog).getByRole('button', { name: 'Test API key' }));
      expect(await within(dialog).findByText('Valid')).toBeInTheDocument();
      await user.selectOptions(within(dialog).getByLabelText('Provider'), 'anthropic');
      expect(within(dialog).queryByText('Valid')).not.toBeInTheDocument();
      expect(within(dialog).queryByText('OpenAI accepted the key.')).not.toBeInTheDocument();
      expect(within(dialog).getByLabelText('Model')).not.toHaveValue('gpt-4o-mini');
      expect((within(dialog).getByLabelText('Model') as HTMLInputElement).value).toMatch(/^claude/);
      await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
      expect(within(screen.getByRole('listitem', { name: 'Employee Support Agent' })).queryByText(/^(Valid|Invalid)$/)).not.toBeInTheDocument();
    });

    it('the card does not show the result of a typed key that was never saved', async () => {
      const server = fakeConfigServer();
      server.on('POST /api/config/test-api-key', () => ok({ isValid: false, reason: 'The provider refused the key (HTTP 401).' }));
      const { user } = renderTab();
      const dialog = await openDialog(user);
      await user.type(within(dialog).getByLabelText('API Key'), 'sk-typed-key-12345678');
      await user.click(within(dialog).getByRole('button', { name: 'Test API key' }));
      expect(await within(dialog).findByText('Invalid')).toBeInTheDocument();
      await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
      expect(within(screen.getByRole('listitem', { name: 'Employee Support Agent' })).queryByText('Invalid')).not.toBeInTheDocument();
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

  it("'Global Settings' and 'Security & System Settings' each have a Save of their own, which sends only that card's fields", async () => {
    const server = fakeConfigServer();
    const { user } = renderTab();
    await screen.findByRole('heading', { name: 'Global Settings' });
    expect(screen.getByRole('heading', { name: 'Security & System Settings' })).toBeInTheDocument();
    expect(screen.getByLabelText('Response Temperature')).toHaveValue(0.7);
    expect(screen.getByLabelText('Max Response Length')).toHaveValue(500);
    const language = screen.getByLabelText('Default Language');
    expect(within(language).getAllByRole('option').map((o) => o.textContent)).toEqual(['English', 'Spanish', 'French', 'German', 'Chinese', 'Japanese', 'Korean', 'Hindi', 'Portuguese', 'Italian', 'Arabic']);
    for (const name of ['Enable Customer Support', 'Enable Employee Support', 'Enable Analytics']) expect(screen.getByRole('switch', { name })).toBeChecked();
    expect(screen.getByRole('switch', { name: 'Debug Mode' })).not.toBeChecked();

    await user.selectOptions(language, 'fr');
    await user.clear(screen.getByLabelText('Max Response Length'));
    await user.type(screen.getByLabelText('Max Response Length'), '800');
    await user.click(screen.getByRole('switch', { name: 'Enable Employee Support' }));
    await user.click(screen.getByRole('switch', { name: 'Enable Analytics' }));
    await user.click(screen.getByRole('switch', { name: 'Debug Mode' }));

    // Each card has its own Save, inside it, that sends only that card's fields.
    const globalCard = screen.getByRole('region', { name: 'Global Settings' });
    await user.click(within(globalCard).getByRole('button', { name: 'Save global settings' }));
    expect(await within(globalCard).findByText('Settings saved.')).toBeInTheDocument();
    expect(server.callsTo('PUT /api/config/global').map((c) => c.body)).toEqual([{ responseTemperature: 0.7, maxResponseLength: 800, defaultLanguage: 'fr' }]);

    const securityCard = screen.getByRole('region', { name: 'Security & System Settings' });
    await user.click(within(securityCard).getByRole('button', { name: 'Save' }));
    expect(await within(securityCard).findByText('Settings saved.')).toBeInTheDocument();
    const [, put] = server.callsTo('PUT /api/config/global');
    expect(put.body).toMatchObject({ enableAnalytics: false, debugMode: true, verticals: { hr: false, 'customer-service': true } });
    expect(put.body).not.toHaveProperty('defaultLanguage');
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

  it('Speech to text: switches the provider on with a local Whisper server, sends the key once, and shows the mask', async () => {
    const server = fakeConfigServer();
    let stored = { enabled: false, provider: 'openai', model: 'whisper-1', baseUrl: null, endpoint: null, apiVersion: null, apiKey: null as string | null };
    server.on('GET /api/config/speech', () => ok(stored));
    server.on('PUT /api/config/speech', (body) => {
      stored = { ...stored, ...body, apiKey: body.apiKey ? `${body.apiKey.slice(0, 3)}...${body.apiKey.slice(-4)}` : stored.apiKey };
      return ok(stored);
    });
    const { user } = renderTab();
    const section = within((await screen.findByRole('heading', { name: 'Speech to text' })).closest('section')!);
    await user.click(section.getByRole('switch', { name: 'Transcribe recordings' }));
    await user.selectOptions(section.getByRole('combobox', { name: 'Provider' }), 'openai-compatible');
    expect(section.getByRole('combobox', { name: 'Model' })).toHaveValue('whisper-1');
    await user.type(section.getByLabelText('Base URL'), 'http://127.0.0.1:8000/v1');
    await user.type(section.getByLabelText('API Key'), 'sk-local-whisper-key');
    await user.click(section.getByRole('button', { name: 'Save Speech to text' }));
    expect(await section.findByText('Saved')).toBeInTheDocument();
    expect(server.callsTo('PUT /api/config/speech')[0].body).toMatchObject({ enabled: true, provider: 'openai-compatible', model: 'whisper-1', baseUrl: 'http://127.0.0.1:8000/v1', apiKey: 'sk-local-whisper-key' });
    expect(section.getByLabelText('API Key')).toHaveValue('sk-...-key');
  });
});
