import { AppError } from '../../common/app-error';
import { applySettingsUpdate, DEFAULT_GLOBAL_SETTINGS } from '../global-settings';
import { looksMasked, parseAgentBody } from './agent-config.dto';

function errorOf(fn: () => unknown): AppError {
  try {
    fn();
  } catch (error) {
    return error as AppError;
  }
  throw new Error('expected a refusal');
}

describe('parseAgentBody', () => {
  it('keeps the stored key for an absent, empty or masked apiKey, and removes it for null', () => {
    expect(parseAgentBody({ llmConfig: {} }).apiKey).toBeUndefined();
    expect(parseAgentBody({ llmConfig: { apiKey: '' } }).apiKey).toBeUndefined();
    expect(parseAgentBody({ llmConfig: { apiKey: 'sk-...abcd' } }).apiKey).toBeUndefined();
    expect(parseAgentBody({ llmConfig: { apiKey: null } }).apiKey).toBeNull();
    expect(parseAgentBody({ llmConfig: { apiKey: ' sk-new-1234567890 ' } }).apiKey).toBe('sk-new-1234567890');
    expect(looksMasked('****')).toBe(true);
  });

  it.each([
    [{ llmConfig: { temperature: 5 } }, 'validation_failed'],
    [{ llmConfig: { temperature: -0.1 } }, 'validation_failed'],
    [{ llmConfig: { maxTokens: -1 } }, 'validation_failed'],
    [{ llmConfig: { maxTokens: 1.5 } }, 'validation_failed'],
    [{ llmConfig: { provider: 'skynet' } }, 'validation_failed'],
    [{ vertical: 'astrology' }, 'unknown_vertical'],
    [{ vertical: 'future' }, 'unknown_vertical'],
    [{ agentId: 'Not A Slug' }, 'validation_failed'],
    [{ timeout: 50 }, 'validation_failed'],
    [{ llmConfig: { endpoint: 'ftp://x' } }, 'validation_failed'],
  ])('refuses %j with %s', (body, code) => {
    const error = errorOf(() => parseAgentBody(body));
    expect(error).toBeInstanceOf(AppError);
    expect(error.code).toBe(code);
    expect(error.status).toBe(400);
  });
});

describe('applySettingsUpdate', () => {
  it('merges a partial update and refuses bad values', () => {
    const next = applySettingsUpdate(DEFAULT_GLOBAL_SETTINGS, { verticals: { hr: false }, enableAnalytics: false });
    expect(next.verticals).toEqual({ 'customer-service': true, hr: false, legal: true, sales: true });
    expect(next.enableAnalytics).toBe(false);
    expect(next.maxResponseLength).toBe(500);
    expect(errorOf(() => applySettingsUpdate(next, { responseTemperature: 5 })).status).toBe(400);
    expect(errorOf(() => applySettingsUpdate(next, { verticals: { future: true } })).code).toBe('unknown_vertical');
    expect(errorOf(() => applySettingsUpdate(next, { defaultLanguage: 'xx' })).code).toBe('unknown_language');
  });
});
