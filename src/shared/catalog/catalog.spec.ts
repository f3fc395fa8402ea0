import {
  AGENT_VERTICAL_IDS,
  DEFAULT_MODELS,
  ENABLED_VERTICAL_IDS,
  JURISDICTIONS,
  KNOWLEDGE_VERTICAL_IDS,
  LANGUAGES,
  MODEL_PRICES,
  PROVIDERS,
  SPEC_PROVIDERS,
  SPEECH_LOCALES,
  VERTICALS,
  costUsd,
  findModelPrice,
  getJurisdiction,
  getLanguageByCode,
  getLanguageByName,
  getVertical,
  isEnabledVertical,
  requiresSubRegion,
  speechLocaleFor,
} from '../index';

describe('verticals', () => {
  it('has five verticals, four enabled, in tab order with their names', () => {
    expect(VERTICALS.map((v) => [v.id, v.name])).toEqual([
      ['customer-service', 'Customer Support'],
      ['hr', 'Employee Support'],
      ['legal', 'Legal Advisor'],
      ['sales', 'Sales Advisor'],
      ['future', 'More Services'],
    ]);
    expect(ENABLED_VERTICAL_IDS).toEqual(['customer-service', 'hr', 'legal', 'sales']);
  });

  it('marks future disabled with a Coming Soon badge and legal as needing a jurisdiction', () => {
    expect(getVertical('future')).toMatchObject({ enabled: false, badge: 'Coming Soon' });
    expect(isEnabledVertical('future')).toBe(false);
    expect(isEnabledVertical('nope')).toBe(false);
    expect(getVertical('legal')?.requiresJurisdiction).toBe(true);
    expect(VERTICALS.filter((v) => v.requiresJurisdiction).map((v) => v.id)).toEqual(['legal']);
    expect(getVertical('customer-service')?.description).toBe('How Can I Help You Today?');
    expect(getVertical('legal')?.persona).toMatch(/not legal advice/i);
  });

  it('gives each vertical its icon, hex colour and non-empty texts', () => {
    expect(VERTICALS.map((v) => v.icon)).toEqual([
      'MessageCircle',
      'Users',
      'Scale',
      'TrendingUp',
      'Sparkles',
    ]);
    for (const v of VERTICALS) {
      expect(v.color).toMatch(/^#[0-9a-f]{6}$/i);
      expect(v.welcomeMessage.length).toBeGreaterThan(0);
      expect(v.persona.length).toBeGreaterThan(0);
    }
  });

  it('derives knowledge and agent verticals from the enabled ones', () => {
    expect(KNOWLEDGE_VERTICAL_IDS).toEqual(ENABLED_VERTICAL_IDS);
    expect(AGENT_VERTICAL_IDS).toEqual(['universal', ...ENABLED_VERTICAL_IDS]);
  });
});

describe('languages', () => {
  it('offers 11 languages, English first', () => {
    expect(LANGUAGES.map((l) => l.code)).toEqual([
      'en', 'es', 'fr', 'de', 'zh', 'ja', 'ko', 'hi', 'pt', 'it', 'ar',
    ]);
  });

  it('maps 15 codes to speech locales, including the four not offered', () => {
    expect(Object.keys(SPEECH_LOCALES)).toHaveLength(15);
    for (const code of ['ru', 'nl', 'sv', 'pl']) {
      expect(SPEECH_LOCALES[code]).toMatch(/^[a-z]{2}-[A-Z]{2}$/);
      expect(getLanguageByCode(code)).toBeUndefined();
    }
    for (const l of LANGUAGES) expect(SPEECH_LOCALES[l.code]).toBe(l.speechLocale);
    expect(SPEECH_LOCALES).toMatchObject({ en: 'en-US', es: 'es-ES', zh: 'zh-CN', ar: 'ar-SA' });
  });

  it('looks languages up by code and case-insensitive English name', () => {
    expect(getLanguageByCode('ja')?.name).toBe('Japanese');
    expect(getLanguageByName('spanish')?.code).toBe('es');
    expect(getLanguageByName(' ARABIC ')?.code).toBe('ar');
    expect(getLanguageByName('Klingon')).toBeUndefined();
  });

  it('defaults the speech locale to en-US', () => {
    expect(speechLocaleFor('fr')).toBe('fr-FR');
    expect(speechLocaleFor('ru')).toBe('ru-RU');
    expect(speechLocaleFor('xx')).toBe('en-US');
    expect(speechLocaleFor(undefined)).toBe('en-US');
    expect(speechLocaleFor('toString')).toBe('en-US');
  });
});

describe('jurisdictions', () => {
  it('has the six jurisdictions with their legal systems', () => {
    expect(JURISDICTIONS.map((j) => [j.code, j.legalSystem])).toEqual([
      ['US', 'Common Law'],
      ['UK', 'Common Law'],
      ['EU', 'Civil Law'],
      ['IN', 'Common Law with Civil influences'],
      ['JP', 'Civil Law'],
      ['AE', 'Mixed civil/Sharia/common'],
    ]);
    expect(getJurisdiction('IN')?.languages).toEqual(['English', 'Hindi']);
    expect(getJurisdiction('JP')?.languages).toEqual(['Japanese', 'English']);
    expect(getJurisdiction('EU')?.specificFeatures.join(' ')).toMatch(/GDPR/);
  });

  it('lists all 50 US states alphabetically, without DC', () => {
    const states = getJurisdiction('US')?.subRegions ?? [];
    expect(states).toHaveLength(50);
    expect(new Set(states).size).toBe(50);
    expect([...states].sort((a, b) => a.localeCompare(b))).toEqual(states);
    expect(states).not.toContain('District of Columbia');
    expect(states[0]).toBe('Alabama');
    expect(states[49]).toBe('Wyoming');
  });

  it('has the UK regions and the seven emirates', () => {
    expect(getJurisdiction('UK')?.subRegions).toEqual([
      'England & Wales',
      'Scotland',
      'Northern Ireland',
    ]);
    expect(getJurisdiction('AE')?.subRegions).toEqual([
      'Abu Dhabi',
      'Dubai',
      'Sharjah',
      'Ajman',
      'Umm Al Quwain',
      'Ras Al Khaimah',
      'Fujairah',
    ]);
    expect(getJurisdiction('US')?.subRegionLabel).toBe('State');
    expect(getJurisdiction('UK')?.subRegionLabel).toBe('Region');
    expect(getJurisdiction('AE')?.subRegionLabel).toBe('Emirate');
  });

  it('requires a sub-region only for US, UK and AE, and warns only for US and AE', () => {
    expect(JURISDICTIONS.filter((j) => requiresSubRegion(j.code)).map((j) => j.code)).toEqual([
      'US',
      'UK',
      'AE',
    ]);
    expect(JURISDICTIONS.filter((j) => j.warning).map((j) => j.code)).toEqual(['US', 'AE']);
    expect(getJurisdiction('US')?.warning).toMatch(/state/i);
    expect(getJurisdiction('AE')?.warning).toMatch(/emirate and free zone/i);
    expect(requiresSubRegion('XX')).toBe(false);
    expect(getJurisdiction('xx')).toBeUndefined();
  });
});

describe('providers and cost', () => {
  it('lists the providers, the hosted vendors first', () => {
    expect(PROVIDERS.map((p) => p.id)).toEqual([
      'openai',
      'anthropic',
      'azure',
      'openai-compatible',
      'local',
    ]);
    expect(SPEC_PROVIDERS).toEqual(['openai', 'anthropic', 'azure']);
    expect(DEFAULT_MODELS).toEqual({
      openai: 'gpt-4o-mini',
      anthropic: 'claude-haiku-4-5',
      azure: 'gpt-4o-mini',
      'openai-compatible': 'llama3.1',
      local: 'knowledge-responder',
    });
  });

  it('prices every paid default model', () => {
    for (const p of ['openai', 'anthropic', 'azure'] as const) {
      expect(MODEL_PRICES[p][DEFAULT_MODELS[p]]).toBeDefined();
    }
  });

  it('computes cost from per-million prices', () => {
    // gpt-4o-mini: $0.15 in, $0.60 out per million tokens.
    expect(costUsd('openai', 'gpt-4o-mini', 1_000_000, 1_000_000)).toBeCloseTo(0.75, 10);
    expect(costUsd('openai', 'gpt-4o', 1000, 500)).toBeCloseTo(0.0075, 10);
    expect(costUsd('anthropic', 'claude-sonnet-4-5', 2000, 1000)).toBeCloseTo(0.021, 10);
    expect(costUsd('azure', 'gpt-4o', 1000, 500)).toBe(costUsd('openai', 'gpt-4o', 1000, 500));
  });

  it('matches dated snapshots by the longest prefix', () => {
    expect(costUsd('openai', 'gpt-4o-2024-08-06', 1000, 500)).toBe(
      costUsd('openai', 'gpt-4o', 1000, 500),
    );
    expect(findModelPrice('openai', 'gpt-4o-mini-2024-07-18')).toBe(
      MODEL_PRICES.openai['gpt-4o-mini'],
    );
    expect(findModelPrice('openai', 'gpt-4.1-nano-2025-04-14')).toBe(
      MODEL_PRICES.openai['gpt-4.1-nano'],
    );
    expect(findModelPrice('anthropic', 'claude-sonnet-4-5-20250929')).toBe(
      MODEL_PRICES.anthropic['claude-sonnet-4-5'],
    );
    expect(findModelPrice('anthropic', 'claude-3-5-haiku-20241022')).toBe(
      MODEL_PRICES.anthropic['claude-3-5-haiku-latest'],
    );
    // A prefix must end at a '-' boundary: 'gpt-4o' does not price 'gpt-4omni'.
    expect(findModelPrice('openai', 'gpt-4omni')).toBeUndefined();
  });

  it('falls back to the default model price for unknown models of paid providers', () => {
    expect(costUsd('openai', 'some-new-model', 1000, 1000)).toBe(
      costUsd('openai', 'gpt-4o-mini', 1000, 1000),
    );
    expect(costUsd('azure', 'my-deployment', 1000, 1000)).toBe(
      costUsd('openai', 'gpt-4o-mini', 1000, 1000),
    );
    expect(costUsd('anthropic', 'claude-unknown', 1000, 1000)).toBe(
      costUsd('anthropic', 'claude-haiku-4-5', 1000, 1000),
    );
  });

  it('is free for local and openai-compatible models and unknown providers', () => {
    expect(costUsd('local', 'knowledge-responder', 5000, 5000)).toBe(0);
    expect(costUsd('openai-compatible', 'llama3.1', 5000, 5000)).toBe(0);
    expect(costUsd('openai-compatible', 'gpt-4o', 5000, 5000)).toBe(0);
    expect(costUsd('mystery', 'gpt-4o', 5000, 5000)).toBe(0);
  });

  it('rounds to 1e-8 and ignores invalid token counts', () => {
    // 1 token of gpt-4.1-nano input = $0.0000001.
    expect(costUsd('openai', 'gpt-4.1-nano', 1, 0)).toBe(1e-7);
    // 1 token at $0.15/M = 1.5e-7, exactly representable after rounding.
    expect(costUsd('openai', 'gpt-4o-mini', 1, 0)).toBe(1.5e-7);
    const c = costUsd('openai', 'gpt-4o-mini', 333, 777);
    expect(Math.round(c * 1e8) / 1e8).toBe(c);
    expect(costUsd('openai', 'gpt-4o', -5, Number.NaN)).toBe(0);
  });
});
