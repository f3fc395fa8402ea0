import { GlobalSettingsUpdateSchema } from '../shared/contracts/config';
import { applySettingsUpdate, DEFAULT_GLOBAL_SETTINGS, readStoredSettings } from './global-settings';

describe('global settings', () => {
  it('merges a checked partial update (unknown fields were dropped by the contract)', () => {
    const update = GlobalSettingsUpdateSchema.parse({ verticals: { hr: false }, enableAnalytics: false, theme: 'dark' });
    const next = applySettingsUpdate(DEFAULT_GLOBAL_SETTINGS, update);
    expect(next.verticals).toEqual({ 'customer-service': true, hr: false, legal: true, sales: true });
    expect(next.enableAnalytics).toBe(false);
    expect(next.maxResponseLength).toBe(500);
    expect(next).not.toHaveProperty('theme');
    expect(DEFAULT_GLOBAL_SETTINGS.verticals.hr).toBe(true);
  });

  it('reads stored settings field by field over the defaults', () => {
    const read = readStoredSettings(JSON.stringify({ maxResponseLength: 900, verticals: { legal: false } }));
    expect(read.settings).toMatchObject({ maxResponseLength: 900, responseTemperature: 0.7, verticals: { hr: true, legal: false } });
    expect(read.problems).toEqual([]);
  });

  it('says which stored values it could not read instead of silently using the defaults', () => {
    const notJson = readStoredSettings('not json');
    expect(notJson.settings).toEqual(DEFAULT_GLOBAL_SETTINGS);
    expect(notJson.problems).toEqual([expect.stringMatching(/not a JSON object; every setting is at its default/)]);

    const stored = { maxResponseLength: 900, budgets: { list: 'lots' }, chatLimits: { ipPerMinute: 'ten' } };
    const read = readStoredSettings(JSON.stringify(stored));
    expect(read.settings.maxResponseLength).toBe(900);
    expect(read.settings.budgets).toEqual(DEFAULT_GLOBAL_SETTINGS.budgets);
    expect(read.settings.chatLimits).toEqual(DEFAULT_GLOBAL_SETTINGS.chatLimits);
    expect(read.problems).toEqual([expect.stringMatching(/^The stored setting chatLimits .*not valid/), expect.stringMatching(/^The stored setting budgets \(\{"list":"lots"\}\) is not valid/)]);
  });
});
