import { formatOpening, hoursStatus, instantOf } from './business-hours';
import { asksForPerson, handoffNotice, HANDOFF_LANGUAGES } from './handoff-phrases';
import { LANGUAGES } from '../shared/catalog/languages';

const weekdays = (open: string, close: string) => Object.fromEntries(['mon', 'tue', 'wed', 'thu', 'fri'].map((d) => [d, [{ open, close }]]));

describe('business hours', () => {
  const paris = { timeZone: 'Europe/Paris', weekly: weekdays('09:00', '17:00'), holidays: ['2026-12-25'] };

  it('is open inside an opening and closed at its end', () => {
    expect(hoursStatus(paris, Date.UTC(2026, 10, 30, 8, 0))).toEqual({ open: true, nextOpening: null }); // Mon 09:00 Paris
    expect(hoursStatus(paris, Date.UTC(2026, 10, 30, 16, 0))).toEqual({ open: false, nextOpening: Date.UTC(2026, 11, 1, 8, 0) }); // Mon 17:00 -> Tue 09:00
  });

  it('skips weekends and holidays', () => {
    expect(hoursStatus(paris, Date.UTC(2026, 10, 28, 12, 0)).nextOpening).toBe(Date.UTC(2026, 10, 30, 8, 0)); // Sat -> Mon
    expect(hoursStatus(paris, Date.UTC(2026, 11, 25, 9, 0))).toEqual({ open: false, nextOpening: Date.UTC(2026, 11, 28, 8, 0) });
  });

  it('follows daylight-saving changes', () => {
    // Paris moves to summer time on Sunday 29 March 2026: Monday 09:00 is 07:00 UTC.
    expect(hoursStatus(paris, Date.UTC(2026, 2, 28, 12, 0)).nextOpening).toBe(Date.UTC(2026, 2, 30, 7, 0));
    expect(instantOf('America/New_York', 2026, 11, 2, 9, 0)).toBe(Date.UTC(2026, 10, 2, 14, 0));
    expect(instantOf('America/New_York', 2026, 10, 30, 9, 0)).toBe(Date.UTC(2026, 9, 30, 13, 0));
  });

  it('is always open without hours, never opens with an empty week', () => {
    expect(hoursStatus(undefined, 0)).toEqual({ open: true, nextOpening: null });
    expect(hoursStatus({ timeZone: 'UTC', weekly: {}, holidays: [] }, Date.UTC(2026, 0, 1))).toEqual({ open: false, nextOpening: null });
  });

  it('writes the opening in the visitor language and zone', () => {
    expect(formatOpening(Date.UTC(2026, 10, 30, 8, 0), 'de', 'Asia/Tokyo')).toMatch(/Montag.*17:00/);
    expect(formatOpening(Date.UTC(2026, 10, 30, 8, 0), 'xx-not-a-language', 'Not/AZone')).toMatch(/Monday/);
  });
});

describe('asking for a person in words', () => {
  it.each([
    ['Can I talk to a human?', 'en'],
    ['connect me with a live agent', 'en'],
    ['agent please', 'en'],
    ['Quiero hablar con un agente', 'es'],
    ['Je veux parler à un conseiller', 'fr'],
    ['Kann ich mit einem Mitarbeiter sprechen?', 'de'],
    ['Vorrei parlare con un operatore', 'it'],
    ['Quero falar com um atendente', 'pt'],
    ['我要转人工', 'zh'],
    ['オペレーターと話したい', 'ja'],
    ['상담원 연결해 주세요', 'ko'],
    ['मुझे किसी व्यक्ति से बात करनी है', 'hi'],
    ['أريد التحدث مع موظف', 'ar'],
  ])('%s (%s)', (text, language) => {
    expect(asksForPerson(text, language)).toBe(true);
  });

  it.each(['How many people work at your company?', 'What is a human resources policy?', 'Is the agent fee refundable?', 'Parlez-moi des horaires'])('not: %s', (text) => {
    expect(asksForPerson(text, 'en')).toBe(false);
  });

  it('tells the visitor in each of the product languages', () => {
    expect(HANDOFF_LANGUAGES.sort()).toEqual(LANGUAGES.map((l) => l.code).sort());
    for (const code of HANDOFF_LANGUAGES) {
      expect(handoffNotice(code, { kind: 'waiting', position: 3, waitMinutes: 7 })).toMatch(/3.*7|7.*3/);
      expect(handoffNotice(code, { kind: 'closed', opening: 'OPENING' })).toContain('OPENING');
    }
  });
});
