import { browserLabel } from './browser-label';

describe('browserLabel', () => {
  it('names the browser, its major version and the system', () => {
    expect(browserLabel('Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36')).toBe('Chrome 126 on macOS');
    expect(browserLabel('Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1')).toBe('Safari 17 on iOS');
  });

  it('names other clients by their first word, and says when there is nothing to go by', () => {
    expect(browserLabel('curl/8.1.2')).toBe('curl 8.1.2');
    expect(browserLabel('')).toBe('Unknown browser');
    expect(browserLabel(null)).toBe('Unknown browser');
    expect(browserLabel('((()))')).toBe('Unknown browser');
  });
});
