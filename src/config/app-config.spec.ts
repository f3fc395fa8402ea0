import { ConfigError, loadConfig } from './app-config';

describe('loadConfig', () => {
  it('uses the embedded defaults on an empty environment', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 3000,
      healthIntervalMs: 30000,
      acceptHandles: 64,
      chatTimeoutMs: 130000,
      databaseUrl: undefined,
      redisUrl: undefined,
      smtpUrl: undefined,
      corsOrigins: [],
    });
    expect(config.dataDir).toMatch(/data$/);
  });

  it('reads every documented setting', () => {
    const config = loadConfig({
      PORT: '8080',
      DATA_DIR: '/tmp/sa',
      DATABASE_URL: 'postgres://u@db:5432/app',
      REDIS_URL: 'redis://cache:6379',
      SMTP_URL: 'smtp://mail:1025',
      APP_SECRET: 'x'.repeat(32),
      OPENAI_API_KEY: 'sk-1',
      ANTHROPIC_API_KEY: 'sk-ant-1',
      AZURE_OPENAI_ENDPOINT: 'https://r.openai.azure.com',
      AZURE_OPENAI_API_KEY: 'az',
      AZURE_OPENAI_API_VERSION: '2024-06-01',
      LLM_BASE_URL: 'http://localhost:11434/v1',
      HEALTH_INTERVAL_MS: '5000',
      ACCEPT_HANDLES: '1',
      CHAT_TIMEOUT_MS: '60000',
      CORS_ORIGINS: 'https://a.example, https://b.example',
    });
    expect(config).toMatchObject({
      port: 8080,
      dataDir: '/tmp/sa',
      databaseUrl: 'postgres://u@db:5432/app',
      redisUrl: 'redis://cache:6379',
      smtpUrl: 'smtp://mail:1025',
      openaiApiKey: 'sk-1',
      anthropicApiKey: 'sk-ant-1',
      azureOpenaiEndpoint: 'https://r.openai.azure.com',
      azureOpenaiApiVersion: '2024-06-01',
      llmBaseUrl: 'http://localhost:11434/v1',
      healthIntervalMs: 5000,
      acceptHandles: 1,
      chatTimeoutMs: 60000,
      corsOrigins: ['https://a.example', 'https://b.example'],
    });
  });

  it.each([
    ['PORT', 'eighty', /PORT must be a whole number/],
    ['PORT', '70000', /PORT must be a whole number/],
    ['DATABASE_URL', 'mysql://x@y/z', /DATABASE_URL must be a postgres: or postgresql: URL/],
    ['REDIS_URL', 'not a url', /REDIS_URL is not a valid URL/],
    ['SMTP_URL', 'http://mail', /SMTP_URL must be a smtp: or smtps: URL/],
    ['HEALTH_INTERVAL_MS', '-5', /HEALTH_INTERVAL_MS must be a whole number/],
    ['CHAT_TIMEOUT_MS', '1.5', /CHAT_TIMEOUT_MS must be a whole number/],
    ['ACCEPT_HANDLES', '0', /ACCEPT_HANDLES must be a whole number/],
    ['ACCEPT_HANDLES', '257', /ACCEPT_HANDLES must be a whole number/],
    ['APP_SECRET', 'short', /APP_SECRET must be at least 32 characters/],
    ['CORS_ORIGINS', 'not-an-origin', /CORS_ORIGINS has an entry that is not an origin URL/],
    ['LLM_BASE_URL', 'ftp://x', /LLM_BASE_URL must be a http: or https: URL/],
  ])('stops with a message naming %s when it is "%s"', (name, value, message) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(message);
  });

  it('lists every bad setting at once', () => {
    try {
      loadConfig({ PORT: 'x', REDIS_URL: 'nope' });
      throw new Error('expected a ConfigError');
    } catch (error) {
      expect((error as ConfigError).problems).toHaveLength(2);
    }
  });

  it('reads the admin and sign-in settings', () => {
    const config = loadConfig({
      ADMIN_EMAIL: '  Ada@Example.COM ',
      ADMIN_PASSWORD: ' twelve chars ',
      ADMIN_NAME: 'Ada Lovelace',
      COOKIE_SECURE: 'true',
      MAIL_FROM: 'Help Desk <help@example.com>',
      OUTBOX_SWEEP_MS: '5000',
      SIGN_IN_IP_LIMIT: '20',
      ADMIN_SOCKET_CHECK_MS: '1000',
    });
    expect(config).toMatchObject({
      adminEmail: 'ada@example.com',
      adminPassword: ' twelve chars ', // spaces are part of a password
      adminName: 'Ada Lovelace',
      cookieSecure: true,
      mailFrom: 'Help Desk <help@example.com>',
      outboxSweepMs: 5000,
      signInIpLimit: 20,
      adminSocketCheckMs: 1000,
    });
  });

  it('defaults: no admin from the environment, Secure cookie decided per request, sweeps every 30 s', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ adminEmail: undefined, adminPassword: undefined, adminName: undefined, cookieSecure: undefined, outboxSweepMs: 30000, signInIpLimit: 100 });
    expect(loadConfig({ COOKIE_SECURE: 'false' }).cookieSecure).toBe(false);
  });

  it.each([
    [{ ADMIN_EMAIL: 'not-an-email' }, /ADMIN_EMAIL is not an email address/],
    [{ ADMIN_EMAIL: 'a@b.c', ADMIN_PASSWORD: 'x'.repeat(11) }, /ADMIN_PASSWORD must be at least 12 characters/],
    [{ ADMIN_EMAIL: 'a@b.c', ADMIN_PASSWORD: 'x'.repeat(129) }, /ADMIN_PASSWORD must be at most 128 characters/],
    [{ ADMIN_PASSWORD: 'long enough password' }, /ADMIN_PASSWORD is set but ADMIN_EMAIL is not/],
    [{ ADMIN_NAME: 'Ada' }, /ADMIN_NAME is set but ADMIN_EMAIL is not/],
    [{ COOKIE_SECURE: 'maybe' }, /COOKIE_SECURE must be true or false/],
    [{ MAIL_FROM: 'nobody' }, /MAIL_FROM must be an address/],
    [{ SIGN_IN_IP_LIMIT: '0' }, /SIGN_IN_IP_LIMIT must be a whole number/],
  ])('stops on a bad sign-in setting %j', (env, message) => {
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('never puts ADMIN_PASSWORD in an error message', () => {
    expect(() => loadConfig({ ADMIN_EMAIL: 'a@b.c', ADMIN_PASSWORD: 'hunter2' })).toThrow(ConfigError);
    try {
      loadConfig({ ADMIN_EMAIL: 'a@b.c', ADMIN_PASSWORD: 'hunter2' });
    } catch (error) {
      expect((error as Error).message).not.toContain('hunter2');
    }
  });

  it('refuses an Azure key without its endpoint', () => {
    expect(() => loadConfig({ AZURE_OPENAI_API_KEY: 'k' })).toThrow(/AZURE_OPENAI_ENDPOINT/);
  });
});
