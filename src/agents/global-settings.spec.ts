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
    expect(readStoredSettings(JSON.stringify({ maxResponseLength: 900, verticals: { legal: false } }))).toMatchObject({ maxResponseLength: 900, responseTemperature: 0.7, verticals: { hr: true, legal: false } });
    expect(readStoredSettings('not json')).toEqual(DEFAULT_GLOBAL_SETTINGS);
  });
});
