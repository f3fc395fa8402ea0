import { getLanguageByCode } from '@shared/catalog/languages';

export { verticalName } from '../../../lib/vertical-names';
export const languageName = (code: string | null) => (code ? (getLanguageByCode(code)?.name ?? code) : '');

/** "12 Mar, 14:05" (this year) or "12 Mar 2024, 14:05": when a conversation or question happened. */
export function formatWhen(iso: string, now = new Date()): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  const sameYear = date.getFullYear() === now.getFullYear();
  return date.toLocaleString(undefined, { day: 'numeric', month: 'short', ...(sameYear ? {} : { year: 'numeric' }), hour: '2-digit', minute: '2-digit' });
}

