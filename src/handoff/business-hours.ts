/**
 * Business hours: whether people are available at a moment, and when they next are, from a
 * vertical's weekly schedule in its IANA time zone with its holidays. Daylight-saving changes are
 * followed (a local opening time is turned into an instant with the zone's offset on that day).
 */
import { WEEKDAYS, type BusinessHours } from '../shared/contracts/handoff';

const DAY_MS = 86_400_000;
/** How far ahead the next opening is looked for (a schedule closed for longer has none). */
const LOOKAHEAD_DAYS = 400;

interface WallClock {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  weekday: (typeof WEEKDAYS)[number];
}

const formatters = new Map<string, Intl.DateTimeFormat>();
function formatterFor(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', weekday: 'short' });
    formatters.set(zone, f);
  }
  return f;
}

/** The wall clock in `zone` at `at`. */
export function wallClock(at: number, zone: string): WallClock {
  const parts = Object.fromEntries(formatterFor(zone).formatToParts(new Date(at)).map((p) => [p.type, p.value]));
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour) % 24,
    minute: Number(parts.minute),
    weekday: String(parts.weekday).slice(0, 3).toLowerCase() as WallClock['weekday'],
  };
}

/** The instant a local wall time in `zone` happens (the zone's offset on that day). */
export function instantOf(zone: string, year: number, month: number, day: number, hour: number, minute: number): number {
  const asUtc = Date.UTC(year, month - 1, day, hour, minute);
  let guess = asUtc;
  for (let i = 0; i < 3; i++) {
    const w = wallClock(guess, zone);
    const offset = Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute) - guess;
    const next = asUtc - offset;
    if (next === guess) break;
    guess = next;
  }
  return guess;
}

const minutesOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));
const dateKey = (w: Pick<WallClock, 'year' | 'month' | 'day'>) => `${w.year}-${String(w.month).padStart(2, '0')}-${String(w.day).padStart(2, '0')}`;

export interface HoursStatus {
  open: boolean;
  /** When closed: the next opening (epoch ms), or null when none is scheduled within a year. */
  nextOpening: number | null;
}

/** Whether `hours` are open at `at`, and if not, when they next open. No hours: always open. */
export function hoursStatus(hours: BusinessHours | undefined | null, at: number): HoursStatus {
  if (!hours) return { open: true, nextOpening: null };
  const holidays = new Set(hours.holidays);
  const now = wallClock(at, hours.timeZone);
  const nowMinutes = now.hour * 60 + now.minute;
  if (!holidays.has(dateKey(now))) {
    for (const o of hours.weekly[now.weekday] ?? []) {
      if (nowMinutes >= minutesOf(o.open) && nowMinutes < minutesOf(o.close)) return { open: true, nextOpening: null };
    }
  }
  // Local noon of each following day stays on that day whatever the offset or daylight-saving change.
  const noon = instantOf(hours.timeZone, now.year, now.month, now.day, 12, 0);
  for (let d = 0; d <= LOOKAHEAD_DAYS; d++) {
    const day = wallClock(noon + d * DAY_MS, hours.timeZone);
    if (holidays.has(dateKey(day))) continue;
    const openings = [...(hours.weekly[day.weekday] ?? [])].sort((a, b) => minutesOf(a.open) - minutesOf(b.open));
    for (const o of openings) {
      if (d === 0 && minutesOf(o.open) <= nowMinutes) continue;
      const at2 = instantOf(hours.timeZone, day.year, day.month, day.day, Number(o.open.slice(0, 2)), Number(o.open.slice(3, 5)));
      if (at2 > at) return { open: false, nextOpening: at2 };
    }
  }
  return { open: false, nextOpening: null };
}

/** A moment as the visitor reads it: their language, their time zone (the schedule's when theirs is unknown or not valid). */
export function formatOpening(at: number, language: string, zone: string): string {
  const options: Intl.DateTimeFormatOptions = { weekday: 'long', day: 'numeric', month: 'long', hour: '2-digit', minute: '2-digit', timeZoneName: 'short' };
  try {
    return new Intl.DateTimeFormat(language, { ...options, timeZone: zone }).format(new Date(at));
  } catch {
    return new Intl.DateTimeFormat('en', { ...options, timeZone: 'UTC' }).format(new Date(at));
  }
}
