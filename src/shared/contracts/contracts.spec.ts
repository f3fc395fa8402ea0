import { AgentCreateSchema, AgentUpdateSchema, GlobalSettingsUpdateSchema, KeyTestRequestSchema } from './config';
import { AttachmentInputSchema, KnowledgeItemInputSchema, utf8Bytes } from './knowledge';
import { check, coded, firstProblem } from './rules';
import { InteractRequestSchema } from './chat';
import { EmailRequestSchema, VerifyOtpSchema } from './auth';
import { AnalyticsWindowQuerySchema } from './analytics';
import { toChatRequest } from '../../chat/chat-request';

const PNG_1x1 = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

function problem(schema: Parameters<typeof check>[0], input: unknown) {
  const result = check(schema, input);
  if (result.ok) throw new Error(`expected ${JSON.stringify(input).slice(0, 80)} to be refused`);
  return result.problem;
}

describe('agent contracts', () => {
  it('keeps the stored key for an absent, empty or masked apiKey, and removes it for null', () => {
    const key = (apiKey: unknown) => AgentUpdateSchema.parse({ llmConfig: { apiKey } }).llmConfig?.apiKey;
    expect(AgentUpdateSchema.parse({ llmConfig: {} }).llmConfig?.apiKey).toBeUndefined();
    expect(key('')).toBeUndefined();
    expect(key('sk-...abcd')).toBeUndefined();
    expect(key('****')).toBeUndefined();
    expect(key(null)).toBeNull();
    expect(key(' sk-new-1234567890 ')).toBe('sk-new-1234567890');
  });

  it.each([
    [{ llmConfig: { temperature: 5 } }, 'validation_failed', 'Temperature must be between 0 and 1'],
    [{ llmConfig: { temperature: -0.1 } }, 'validation_failed', 'Temperature must be between 0 and 1'],
    [{ llmConfig: { maxTokens: -1 } }, 'validation_failed', 'Max Tokens must be a whole number from 1 to 200,000'],
    [{ llmConfig: { maxTokens: 1.5 } }, 'validation_failed', 'Max Tokens must be a whole number from 1 to 200,000'],
    [{ llmConfig: { maxTokens: 9007199254740993 } }, 'validation_failed', 'Max Tokens must be a whole number from 1 to 200,000'],
    [{ llmConfig: { provider: 'skynet' } }, 'validation_failed', 'Provider must be one of openai, anthropic, azure, openai-compatible, local'],
    [{ vertical: 'astrology' }, 'unknown_vertical', 'Vertical must be one of universal, customer-service, hr, legal, sales'],
    [{ vertical: 'future' }, 'unknown_vertical', 'Vertical must be one of universal, customer-service, hr, legal, sales'],
    [{ agentId: 'Not A Slug' }, 'validation_failed', 'Agent id must be a slug: lower-case letters and digits separated by single hyphens (such as billing-agent)'],
    [{ timeout: 50 }, 'validation_failed', 'Timeout (ms) must be a whole number from 100 to 3,600,000'],
    [{ timeout: -1e20 }, 'validation_failed', 'Timeout (ms) must be a whole number from 100 to 3,600,000'],
    [{ llmConfig: { endpoint: 'ftp://x' } }, 'validation_failed', 'Endpoint must be an http or https URL'],
    [{ colour: 'blue' }, 'validation_failed', 'Nothing to change: send at least one agent setting.'],
  ])('refuses the update %j with %s: "%s"', (body, code, message) => {
    expect(problem(AgentUpdateSchema, body)).toMatchObject({ code, message });
  });

  it('a new agent needs a name, a vertical and a provider, in words a person reads', () => {
    expect(problem(AgentCreateSchema, { vertical: 'hr', llmConfig: { provider: 'openai' } }).message).toBe('Agent Name is required');
    expect(problem(AgentCreateSchema, { agentName: 'X', llmConfig: { provider: 'openai' } }).message).toBe('Vertical is required');
    expect(problem(AgentCreateSchema, { agentName: 'X', vertical: 'hr' }).message).toBe('Provider is required');
    expect(problem(AgentCreateSchema, { agentName: 'X', vertical: 'hr', llmConfig: {} }).message).toBe('Provider is required');
  });

  it('a key test names a provider or an agent', () => {
    expect(problem(KeyTestRequestSchema, { apiKey: 'sk-x' }).message).toBe('Name a provider (or the agent whose key to test).');
    expect(KeyTestRequestSchema.parse({ provider: 'openai', apiKey: 'sk-...abcd', model: '' })).toEqual({ provider: 'openai' });
  });
});

describe('global settings contract', () => {
  it.each([
    [{ responseTemperature: 5 }, 'validation_failed', 'Response Temperature must be between 0 and 1'],
    [{ maxResponseLength: 8640000000000001 }, 'validation_failed', 'Max Response Length must be a whole number from 1 to 200,000'],
    [{ verticals: { future: true } }, 'unknown_vertical', 'More Services cannot be switched on yet.'],
    [{ verticals: { astrology: true } }, 'unknown_vertical', 'Unknown vertical. Choose one of customer-service, hr, legal, sales.'],
    [{ verticals: { hr: 'no' } }, 'validation_failed', 'Each vertical switch must be true or false'],
    [{ defaultLanguage: 'xx' }, 'unknown_language', 'Default Language must be one of en, es, fr, de, zh, ja, ko, hi, pt, it, ar'],
    [{ theme: 'dark' }, 'validation_failed', 'Nothing to change: send at least one setting.'],
  ])('refuses %j with %s: "%s"', (body, code, message) => {
    expect(problem(GlobalSettingsUpdateSchema, body)).toMatchObject({ code, message });
  });
});

describe('knowledge contract', () => {
  it('normalises an item: trimmed title with single spaces, tags trimmed and deduplicated, defaults filled', () => {
    expect(KnowledgeItemInputSchema.parse({ title: '  Parking \n at  the office ', vertical: 'hr', tags: [' parking ', 'office', 'PARKING', ''], id: 'x', createdAt: 1 })).toEqual({
      title: 'Parking at the office',
      content: '',
      category: '',
      vertical: 'hr',
      tags: ['parking', 'office'],
      attachments: [],
      jurisdiction: null,
      subRegion: null,
    });
  });

  it('legal items may name a jurisdiction and one of its sub-regions (canonical spelling); other items may not', () => {
    expect(KnowledgeItemInputSchema.parse({ title: 'Deposits', vertical: 'legal', jurisdiction: 'us', subRegion: ' new york ' })).toMatchObject({ jurisdiction: 'US', subRegion: 'New York' });
    expect(KnowledgeItemInputSchema.parse({ title: 'GDPR', vertical: 'legal', jurisdiction: 'EU', subRegion: '' })).toMatchObject({ jurisdiction: 'EU', subRegion: null });
    expect(KnowledgeItemInputSchema.parse({ title: 'Deposits', vertical: 'legal', jurisdiction: '' })).toMatchObject({ jurisdiction: null, subRegion: null });
    expect(problem(KnowledgeItemInputSchema, { title: 'Leave', vertical: 'hr', jurisdiction: 'UK' })).toMatchObject({
      message: 'Only Legal items have a jurisdiction; Employee Support items apply everywhere',
      path: ['jurisdiction'],
    });
    expect(problem(KnowledgeItemInputSchema, { title: 'X', vertical: 'legal', jurisdiction: 'AE', subRegion: 'Texas' })).toMatchObject({
      message: 'Texas is not an emirate of United Arab Emirates',
      path: ['subRegion'],
    });
  });

  it.each([8640000000000001, 9007199254740993, -1e20, 946684799999, 4102444800000, '+275760-09-13T00:00:00.001Z', '1999-12-31T23:59:59Z', 'yesterday'])(
    'refuses the upload time %p',
    (uploadedAt) => {
      expect(problem(AttachmentInputSchema, { name: 'a.txt', content: 'x', uploadedAt }).path).toEqual(['uploadedAt']);
    },
  );

  it.each([
    ['2024-02-30T00:00:00Z', '2024-02-30 does not exist'],
    ['2023-02-29T12:00:00Z', '2023-02-29 does not exist'],
    ['2024-04-31T10:00Z', '2024-04-31 does not exist'],
    ['2024-13-01T00:00:00Z', 'month 13 does not exist'],
    ['2024-01-01T24:00:00Z', '24:00:00 is not a time of day'],
    ['2024-01-01T10:00:00+25:00', '+25:00 is not a time zone offset'],
  ])('refuses the impossible calendar date %s instead of rolling it over (%s)', (value, fault) => {
    expect(problem(AttachmentInputSchema, { name: 'a.txt', content: 'x', uploadedAt: value })).toEqual({
      code: 'validation_failed',
      message: `The upload time is not a real date: ${fault}`,
      path: ['uploadedAt'],
    });
    expect(problem(InteractRequestSchema, { query: 'Hi', vertical: 'hr', conversationHistory: [{ type: 'user', content: 'Hi', timestamp: value }] })).toMatchObject({
      message: `The time of an earlier message is not a real date: ${fault}`,
      path: ['conversationHistory', 0, 'timestamp'],
    });
  });

  it('accepts upload times as epoch ms or ISO text within 2000-2099', () => {
    expect(AttachmentInputSchema.parse({ name: 'a.txt', content: 'x', uploadedAt: '2024-02-29T10:00:00.000Z' }).uploadedAt).toBe(Date.UTC(2024, 1, 29, 10));
    expect(AttachmentInputSchema.parse({ name: 'a.txt', content: 'x', uploadedAt: 946684800000 }).uploadedAt).toBe(946684800000);
  });

  it.each([
    [{ name: 'manual.doc', content: 'x' }, 'unsupported_media_type'],
    [{ name: 'photo.png', type: 'image/gif', content: PNG_1x1 }, 'unsupported_media_type'],
    [{ name: 'photo.png', content: 'data:image/png;base64,aGVsbG8gd29ybGQ=' }, 'unsupported_media_type'],
    [{ name: 'photo.jpg', content: 'not base64 at all' }, 'validation_failed'],
    [{ name: 'notes.txt', content: 'a'.repeat(10 * 1024 * 1024 + 1) }, 'payload_too_large'],
    [{ name: 'notes.txt' }, 'validation_failed'],
    [{ name: '', content: 'x' }, 'validation_failed'],
  ])('refuses the attachment %#', (attachment, code) => {
    expect(problem(AttachmentInputSchema, attachment).code).toBe(code);
  });

  it('checks an image by its decoded size and signature and returns its canonical type', () => {
    expect(AttachmentInputSchema.parse({ name: 'Diagram.PNG', type: 'image/png', content: PNG_1x1 })).toMatchObject({ type: 'image/png', kind: 'image', size: 70, content: PNG_1x1 });
  });

  it('counts content in UTF-8 bytes', () => {
    expect(utf8Bytes('aé€😀')).toBe(1 + 2 + 3 + 4);
    expect(problem(KnowledgeItemInputSchema, { title: 'x', vertical: 'hr', content: 'é'.repeat(512 * 1024 + 1) })).toMatchObject({ code: 'payload_too_large', message: 'Content must be at most 1 MB' });
  });

  it("says 'Title is required', the message the editor shows for a blank title", () => {
    expect(problem(KnowledgeItemInputSchema, { title: '  ', vertical: 'hr' })).toMatchObject({ code: 'validation_failed', message: 'Title is required', path: ['title'] });
  });
});

describe('chat, auth and query contracts', () => {
  it('reports the first problem in field order, with the code of its message', () => {
    expect(problem(InteractRequestSchema, {})).toMatchObject({ code: 'query_empty', path: ['query'] });
    expect(problem(InteractRequestSchema, { query: 'x'.repeat(4001), vertical: 'nope' })).toMatchObject({ code: 'query_too_long' });
    expect(problem(InteractRequestSchema, { query: 'Hi', vertical: 'legal', jurisdiction: 'UK', subJurisdiction: 'Brittany' })).toMatchObject({
      code: 'unknown_jurisdiction',
      message: 'Brittany is not a region of United Kingdom.',
    });
  });

  it('a sub-region may be named by its code (USPS, ISO 3166-2) or its name in any case, and the jurisdiction by its ISO code', () => {
    const legal = (jurisdiction: string, subJurisdiction: string) => toChatRequest(InteractRequestSchema.parse({ query: 'Hi', vertical: 'legal', jurisdiction, subJurisdiction })).jurisdiction;
    expect(legal('US', 'CA')).toMatchObject({ code: 'US', subRegion: 'California' });
    expect(legal('us', 'us-tx')).toMatchObject({ code: 'US', subRegion: 'Texas' });
    expect(legal('US', 'new  york')).toMatchObject({ code: 'US', subRegion: 'New York' });
    expect(legal('GB', 'GB-SCT')).toMatchObject({ code: 'UK', subRegion: 'Scotland' });
    expect(legal('UK', 'Wales')).toMatchObject({ code: 'UK', subRegion: 'England & Wales' });
    expect(legal('UAE', 'AE-DU')).toMatchObject({ code: 'AE', subRegion: 'Dubai' });
    expect(problem(InteractRequestSchema, { query: 'Hi', vertical: 'legal', jurisdiction: 'US', subJurisdiction: 'ZZ' }).message).toBe('ZZ is not a state of United States.');
    expect(problem(InteractRequestSchema, { query: 'Hi', vertical: 'legal', jurisdiction: 'AE', subJurisdiction: 'CA' }).message).toBe('CA is not an emirate of United Arab Emirates.');
    expect(KnowledgeItemInputSchema.parse({ title: 'Deposits', vertical: 'legal', jurisdiction: 'us', subRegion: 'TX' })).toMatchObject({ jurisdiction: 'US', subRegion: 'Texas' });
  });

  it("says 'an emirate', not 'a emirate'", () => {
    expect(problem(InteractRequestSchema, { query: 'Hi', vertical: 'legal', jurisdiction: 'AE', subJurisdiction: 'Texas' }).message).toBe(
      'Texas is not an emirate of United Arab Emirates.',
    );
  });

  it("never reports zod's own wording for a union with a 'none' option (unknown provider, a number as a URL)", () => {
    const keyTest = problem(KeyTestRequestSchema, { provider: 'skynet', apiKey: 'sk-1234567890' });
    expect(keyTest.message).toBe('Provider must be one of openai, anthropic, azure, openai-compatible, local');
    for (const llmConfig of [{ endpoint: 5 }, { baseUrl: true }, { apiVersion: 7 }]) {
      const message = problem(AgentUpdateSchema, { llmConfig }).message;
      expect(message).not.toMatch(/Invalid input|expected/);
      expect(message).toMatch(/^(Endpoint|Base URL|API Version) must be/);
    }
  });

  it('never names an internal path in a message', () => {
    const inputs = [{ context: { skipTranslation: 'yes' } }, { conversationHistory: [{ type: 'user', content: 5 }] }, { llmConfig: { temperature: 'hot' } }];
    for (const input of inputs) {
      for (const schema of [InteractRequestSchema, AgentUpdateSchema]) {
        const result = schema.safeParse({ query: 'Hi', vertical: 'hr', ...input });
        if (!result.success) expect(firstProblem(result.error).message).not.toMatch(/[a-z]+\.[a-z]+|\[\d+\]|llmConfig|conversationHistory/);
      }
    }
  });

  it("says what is missing in the sign-in forms' words", () => {
    expect(problem(EmailRequestSchema, {}).message).toBe('Email is required');
    expect(problem(EmailRequestSchema, { email: '   ' }).message).toBe('Email is required');
    expect(problem(EmailRequestSchema, { email: 'no-at-sign' }).message).toBe('Enter a valid email address');
    expect(problem(VerifyOtpSchema, { email: 'a@b.c', otp: '' }).message).toBe('Verification code is required');
    expect(problem(VerifyOtpSchema, { email: 'a@b.c', otp: '12ab56' }).message).toBe('Enter all 6 digits of the code');
    expect(EmailRequestSchema.parse({ email: ' Admin@Example.COM ' })).toEqual({ email: 'admin@example.com' });
  });

  it('reads the analytics window from the query string, refusing a repeated or unknown one', () => {
    expect(AnalyticsWindowQuerySchema.parse({})).toEqual({ hours: 24 });
    expect(AnalyticsWindowQuerySchema.parse({ hours: '168' })).toEqual({ hours: 168 });
    expect(problem(AnalyticsWindowQuerySchema, { hours: ['1', '24'] }).message).toBe('Give the time range (hours) only once');
    expect(problem(AnalyticsWindowQuerySchema, { hours: '48' }).message).toBe('The time range (hours) must be one of 1, 24, 168, 720');
  });

  it('refuses to give one message two codes', () => {
    expect(coded('conflict', 'A message only this test uses')).toBe('A message only this test uses');
    expect(() => coded('conflict', 'A message only this test uses')).not.toThrow();
    expect(() => coded('not_found', 'A message only this test uses')).toThrow(/two error codes/);
  });
});
