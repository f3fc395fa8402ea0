/** Widget settings for tests (POST/PUT /api/widgets), with overrides. */
export const WIDGET_HOST = 'http://127.0.0.1:4100';

export function widgetSettings(overrides: Record<string, unknown> = {}) {
  return {
    name: 'Help centre',
    allowedOrigins: [WIDGET_HOST, 'https://*.example.com'],
    verticals: ['customer-service', 'sales'],
    defaultVertical: 'customer-service',
    greeting: 'Hi! Ask us anything.',
    color: '#1E3A8A',
    textColor: '#ffffff',
    position: 'bottom-right',
    defaultLanguage: 'en',
    launcherLabel: 'Chat with us',
    requireIdentity: false,
    ...overrides,
  };
}
