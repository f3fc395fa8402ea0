/** What a machine-channel caller is told about its key (401 and 403 answers), and the console's errors. */
export const API_KEY_MESSAGES = {
  missing: 'An API key is required: send it as "Authorization: Bearer <key>" or in the X-API-Key header.',
  invalid: 'The API key is not valid. Check that it was copied whole, or ask an administrator for a new one.',
  revoked: 'This API key has been revoked. Ask an administrator for a new one.',
  expired: (at: Date) => `This API key expired on ${at.toISOString().slice(0, 10)}. Ask an administrator for a new one.`,
  outOfScope: (scope: string, scopes: string[]) => `This API key may not be used for ${scope} (it allows: ${scopes.join(', ')}).`,
  rateLimited: (perMinute: number, seconds: number) => `This API key may make ${perMinute} ${perMinute === 1 ? 'request' : 'requests'} a minute. Try again in ${seconds} s.`,
  notFound: 'No such API key.',
} as const;
