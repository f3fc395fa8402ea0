import { afterEach, describe, expect, it, vi } from 'vitest';
import { getLanguageByCode } from '@shared/catalog/languages';
import type { ChatMessage } from '../../../lib/reply-stream';
import { buildChatPayload, historyOf, newRequestId } from './chat-payload';

const at = '2025-03-01T10:00:00.000Z';
const english = getLanguageByCode('en')!;

afterEach(() => vi.unstubAllGlobals());

describe('buildChatPayload', () => {
  it('leaves out jurisdiction fields outside the legal vertical even if one was chosen', () => {
    const payload = buildChatPayload('r1', 'Hi', { vertical: 'hr', language: english, jurisdiction: { code: 'US', subRegion: 'Ohio' } }, []);
    expect(payload).toEqual({
      requestId: 'r1',
      query: 'Hi',
      vertical: 'hr',
      userId: 'demo-user',
      conversationHistory: [],
      preferredLanguage: 'English',
      detectedLanguage: 'en',
      context: { preferredLanguage: 'English', skipTranslation: true },
    });
  });

  it('adds the legal fields for the legal vertical', () => {
    const payload = buildChatPayload('r1', 'Hi', { vertical: 'legal', language: getLanguageByCode('ar')!, jurisdiction: { code: 'AE', subRegion: 'Dubai' } }, []);
    expect(payload).toMatchObject({
      jurisdiction: 'AE',
      subJurisdiction: 'Dubai',
      preferredLanguage: 'Arabic',
      context: { preferredLanguage: 'Arabic', skipTranslation: false, jurisdictionName: 'United Arab Emirates', legalSystem: 'Mixed civil/Sharia/common' },
    });
  });
});

describe('historyOf', () => {
  it('keeps type, content and timestamp of settled messages, oldest first', () => {
    const messages: ChatMessage[] = [
      { id: 'a', type: 'agent', content: 'Welcome', timestamp: at },
      { id: 'b', type: 'user', content: 'Question', timestamp: at },
      { id: 'c', type: 'agent', content: '', timestamp: at, streaming: true },
    ];
    expect(historyOf(messages)).toEqual([
      { type: 'agent', content: 'Welcome', timestamp: at },
      { type: 'user', content: 'Question', timestamp: at },
    ]);
  });
});

describe('newRequestId', () => {
  it('gives unique ids the server accepts, even without crypto.randomUUID (plain-http pages)', () => {
    vi.stubGlobal('crypto', {});
    const ids = new Set(Array.from({ length: 50 }, () => newRequestId()));
    expect(ids.size).toBe(50);
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9._:-]{1,100}$/);
  });
});
