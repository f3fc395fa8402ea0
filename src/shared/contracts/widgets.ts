/**
 * Embeddable chat widgets: the console's form (the same schema checks it in the browser and on the
 * server), what the console lists, what the loader and the iframe page read publicly, and the
 * messages between the host page and the iframe.
 */
import { z } from 'zod';
import { ENABLED_VERTICAL_IDS, type EnabledVerticalId } from '../catalog/verticals';
import { LANGUAGES } from '../catalog/languages';
import { body, codedIssue, flag, integer, oneOf, optional, text } from './rules';

export const WIDGET_NAME_MAX = 100;
export const WIDGET_ORIGINS_MAX = 50;
export const WIDGET_GREETING_MAX = 500;
export const WIDGET_LABEL_MAX = 40;
export const WIDGET_RATE_LIMIT_MAX = 100_000;
export const WIDGET_POSITIONS = ['bottom-right', 'bottom-left'] as const;
export type WidgetPosition = (typeof WIDGET_POSITIONS)[number];

const HEX_COLOUR = /^#[0-9a-fA-F]{6}$/;
const HOST_LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/**
 * Why `value` is not an origin a widget may be embedded on, or null when it is one. An origin is
 * a scheme (http or https), a host and an optional port, nothing else; `https://*.example.com`
 * stands for every subdomain of example.com (not example.com itself).
 */
export function originProblem(value: string): string | null {
  const shown = value.length > 80 ? `${value.slice(0, 80)}…` : value;
  if (value === '*' || value === 'https://*' || value === 'http://*' || /^\*/.test(value)) {
    return `"${shown}" would let any site embed the widget: list each site's origin, such as https://www.example.com`;
  }
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(value)?.[1]?.toLowerCase();
  if (scheme !== 'http' && scheme !== 'https') {
    return scheme
      ? `"${shown}" is not a web origin (${scheme}: is not allowed): an origin starts with https:// or http://, as in https://www.example.com`
      : `"${shown}" is not an origin: write the scheme and host, as in https://www.example.com`;
  }
  const match = /^https?:\/\/(\*\.)?([^/?#:@\s]+)(:\d{1,5})?(\/?)$/i.exec(value);
  if (!match) {
    const rest = /^https?:\/\/[^/?#]*([/?#].*)$/i.exec(value)?.[1];
    return rest
      ? `"${shown}" has a path or query (${rest.length > 40 ? `${rest.slice(0, 40)}…` : rest}): an origin is only the scheme, host and port, as in ${value.slice(0, value.length - rest.length)}`
      : `"${shown}" is not an origin: write the scheme and host, as in https://www.example.com`;
  }
  const host = match[2].toLowerCase();
  const port = match[3] ? Number(match[3].slice(1)) : undefined;
  if (port !== undefined && (port < 1 || port > 65535)) return `"${shown}" has a port out of range (1 to 65535)`;
  const labels = host.split('.');
  const ipv4 = /^\d{1,3}(\.\d{1,3}){3}$/.test(host);
  if (!ipv4 && !labels.every((label) => HOST_LABEL.test(label))) return `"${shown}" has a host name that is not valid`;
  if (match[1] && (ipv4 || labels.length < 2)) return `"${shown}": a wildcard needs a domain under it, as in https://*.example.com`;
  return null;
}

/** The canonical spelling of a valid origin: lower case, no trailing slash, no default port. */
export function normalizeOrigin(value: string): string {
  let origin = value.trim().toLowerCase().replace(/\/$/, '');
  if (origin.startsWith('https://') && origin.endsWith(':443')) origin = origin.slice(0, -4);
  if (origin.startsWith('http://') && origin.endsWith(':80')) origin = origin.slice(0, -3);
  return origin;
}

/** Whether `origin` (as a browser sends it) is one of `allowed` (exact, or a `*.` subdomain pattern). */
export function originAllowed(allowed: readonly string[], origin: string): boolean {
  const caller = normalizeOrigin(origin);
  return allowed.some((pattern) => {
    if (!pattern.includes('*.')) return pattern === caller;
    const [scheme, rest] = pattern.split('://*.');
    const prefix = `${scheme}://`;
    if (!caller.startsWith(prefix)) return false;
    const callerRest = caller.slice(prefix.length);
    return callerRest.endsWith(`.${rest}`) && callerRest.length > rest.length + 1 && !callerRest.slice(0, -rest.length - 1).includes(':');
  });
}

const OriginSchema = z
  .string({ error: 'Each allowed origin must be text' })
  .trim()
  .max(300, 'An allowed origin must be at most 300 characters')
  .superRefine((value, ctx) => {
    const problem = originProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem, params: { code: 'validation_failed' } });
  })
  .transform(normalizeOrigin);

const VerticalSchema = z.enum(ENABLED_VERTICAL_IDS as unknown as [EnabledVerticalId, ...EnabledVerticalId[]], {
  error: `Each vertical must be one of ${ENABLED_VERTICAL_IDS.join(', ')}`,
});
const LANGUAGE_CODES = LANGUAGES.map((l) => l.code) as [string, ...string[]];
const colour = (label: string) => z.string({ error: `${label} must be a colour such as #1e3a8a` }).regex(HEX_COLOUR, `${label} must be a colour such as #1e3a8a`);

const widgetFields = {
  name: text('Name', WIDGET_NAME_MAX, { required: true }),
  allowedOrigins: z
    .array(OriginSchema, { error: 'Allowed origins must be a list' })
    .max(WIDGET_ORIGINS_MAX, `At most ${WIDGET_ORIGINS_MAX} allowed origins`)
    .refine((origins) => new Set(origins).size === origins.length, codedIssue('validation_failed', () => 'Each allowed origin can be listed once')),
  verticals: z.array(VerticalSchema, { error: 'Choose at least one vertical' }).min(1, 'Choose at least one vertical').max(ENABLED_VERTICAL_IDS.length, 'Each vertical can be chosen once'),
  defaultVertical: VerticalSchema,
  greeting: text('The greeting', WIDGET_GREETING_MAX).default(''),
  color: colour('The colour'),
  textColor: colour('The text colour'),
  position: oneOf(WIDGET_POSITIONS, `The position must be one of ${WIDGET_POSITIONS.join(', ')}`),
  defaultLanguage: oneOf(LANGUAGE_CODES, `The default language must be one of ${LANGUAGE_CODES.join(', ')}`),
  launcherLabel: text('The launcher label', WIDGET_LABEL_MAX, { required: true }),
  requireIdentity: flag('Identity verification'),
  /** Messages per minute from every visitor of this widget together; null: none of its own. */
  messagesPerMinute: optional(integer('Messages per minute', 1, WIDGET_RATE_LIMIT_MAX)),
};

/** POST /api/widgets and PUT /api/widgets/{id}: the whole settings. */
export const WidgetSettingsSchema = body(widgetFields)
  .refine((w) => new Set(w.verticals).size === w.verticals.length, { message: 'Each vertical can be chosen once', path: ['verticals'] })
  .refine((w) => w.verticals.includes(w.defaultVertical), { message: 'The default vertical must be one of the chosen verticals', path: ['defaultVertical'] })
  .meta({ id: 'WidgetSettings' });
export type WidgetSettingsInput = z.input<typeof WidgetSettingsSchema>;
export type WidgetSettings = z.output<typeof WidgetSettingsSchema>;

export const WidgetSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    allowedOrigins: z.array(z.string()),
    verticals: z.array(z.string()),
    defaultVertical: z.string(),
    greeting: z.string(),
    color: z.string(),
    textColor: z.string(),
    position: z.enum(WIDGET_POSITIONS),
    defaultLanguage: z.string(),
    launcherLabel: z.string(),
    requireIdentity: z.boolean(),
    messagesPerMinute: z.number().int().nullable(),
    /** When the identity secret was made or last rotated (the secret itself is shown once). */
    secretRotatedAt: z.string(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'Widget' });
export type Widget = z.infer<typeof WidgetSchema>;

/** POST /api/widgets and POST /api/widgets/{id}/secret: the identity secret, shown this once. */
export const WidgetWithSecretSchema = z.object({ widget: WidgetSchema, secret: z.string() }).meta({ id: 'WidgetWithSecret' });
export type WidgetWithSecret = z.infer<typeof WidgetWithSecretSchema>;

export const DeletedWidgetSchema = z.object({ id: z.string() }).meta({ id: 'DeletedWidget' });

/** GET /api/public/widgets/{id}: what the loader and the iframe page need (no origins, no secret). */
export const PublicWidgetSchema = z
  .object({
    id: z.string(),
    verticals: z.array(z.string()),
    defaultVertical: z.string(),
    greeting: z.string(),
    color: z.string(),
    textColor: z.string(),
    position: z.enum(WIDGET_POSITIONS),
    defaultLanguage: z.string(),
    launcherLabel: z.string(),
    requireIdentity: z.boolean(),
  })
  .meta({ id: 'PublicWidget' });
export type PublicWidget = z.infer<typeof PublicWidgetSchema>;

/** POST /api/public/widgets/{id}/visitor: who the visitor says they are (from `identify()`), if anyone. */
export const WidgetVisitorRequestSchema = body({
  /** The visitor token the iframe has kept, if any (it stays the visitor unless an identity replaces it). */
  token: z.string().max(100).optional(),
  identity: z
    .object({
      id: text('The identity id', 200, { required: true }),
      name: text('The name', 200).optional(),
      email: text('The email', 254).optional(),
      /** HMAC-SHA256 of the id with the widget's secret (hex), or a JWT signed with it (HS256, with exp). */
      signature: z.string().max(4000).optional(),
    })
    .optional(),
}).meta({ id: 'WidgetVisitorRequest' });
export type WidgetVisitorRequest = z.infer<typeof WidgetVisitorRequestSchema>;

export const WidgetVisitorSchema = z
  .object({
    /** Kept in the iframe's storage and sent in the socket's auth (`visitorToken`) or the X-Visitor-Token header. */
    token: z.string(),
    /** Whether the identity was verified (its conversations follow it to other devices). */
    identified: z.boolean(),
  })
  .meta({ id: 'WidgetVisitor' });
export type WidgetVisitor = z.infer<typeof WidgetVisitorSchema>;

export { parseHostMessage, VISITOR_TOKEN_HEADER, WIDGET_HEADER, WIDGET_MESSAGE_SOURCE, type FrameToHostMessage, type HostToFrameMessage, type WidgetIdentity } from './widget-messages';

/** GET /api/analytics/widgets: chat requests through each widget. */
export const WidgetRequestsQuerySchema = z.object({
  days: z.coerce.number({ error: 'days must be a number' }).int('days must be a whole number from 1 to 365').min(1, 'days must be a whole number from 1 to 365').max(365, 'days must be a whole number from 1 to 365').default(30),
}).meta({ id: 'WidgetRequestsQuery' });
export const WidgetRequestsSchema = z
  .object({ id: z.string(), name: z.string(), requests: z.number().int() })
  .meta({ id: 'WidgetRequests' });
export type WidgetRequests = z.infer<typeof WidgetRequestsSchema>;
