import { auditSecret, CHANGE_LIMIT, diffSnapshots, TEXT_LIMIT } from './audit-diff';

describe('audit before/after', () => {
  it('lists only the fields that changed, nested ones by path', () => {
    const before = { agentName: 'HR', enabled: true, llmConfig: { model: 'gpt-4o-mini', temperature: 0.7 } };
    const after = { agentName: 'HR', enabled: false, llmConfig: { model: 'gpt-4o', temperature: 0.7 } };
    expect(diffSnapshots(before, after)).toEqual([
      { field: 'enabled', before: true, after: false },
      { field: 'llmConfig.model', before: 'gpt-4o-mini', after: 'gpt-4o' },
    ]);
  });

  it('records a created target with after values only, a deleted one with before values only', () => {
    expect(diffSnapshots(null, { title: 'Returns', tags: ['a'] })).toEqual([
      { field: 'title', after: 'Returns' },
      { field: 'tags', after: ['a'] },
    ]);
    expect(diffSnapshots({ title: 'Returns' }, null)).toEqual([{ field: 'title', before: 'Returns' }]);
  });

  it('matches list items by their identity (budgets by scope) and compares plain lists whole (tags)', () => {
    const before = { budgets: { list: [{ scope: 'global', monthlyUsd: 100 }, { scope: 'vertical:hr', monthlyUsd: 5 }] }, tags: ['a', 'b'] };
    const after = { budgets: { list: [{ scope: 'vertical:hr', monthlyUsd: 5 }, { scope: 'global', monthlyUsd: 250 }, { scope: 'agent:x', monthlyUsd: 1 }] }, tags: ['a', 'c'] };
    expect(diffSnapshots(before, after)).toEqual([
      { field: 'budgets.list[scope=global].monthlyUsd', before: 100, after: 250 },
      { field: 'budgets.list[scope=agent:x].scope', after: 'agent:x' },
      { field: 'budgets.list[scope=agent:x].monthlyUsd', after: 1 },
      { field: 'tags', before: ['a', 'b'], after: ['a', 'c'] },
    ]);
  });

  it('records that a secret changed, never its value or fingerprint', () => {
    const changes = diffSnapshots({ llmConfig: { apiKey: auditSecret('sk-old-1234567890') } }, { llmConfig: { apiKey: auditSecret('sk-new-0987654321') } });
    expect(changes).toEqual([{ field: 'llmConfig.apiKey', secret: true }]);
    expect(JSON.stringify(changes)).not.toMatch(/sk-|[0-9a-f]{64}/);
    expect(diffSnapshots({ apiKey: auditSecret('same') }, { apiKey: auditSecret('same') })).toEqual([]);
    expect(diffSnapshots({ apiKey: auditSecret(null) }, { apiKey: auditSecret('sk-set') })).toEqual([{ field: 'apiKey', secret: true }]);
  });

  it('treats fields named like secrets as secrets even when a snapshot forgot to mark them', () => {
    const changes = diffSnapshots({ password: 'old password!!', nested: { totpSecret: 'AAAA' } }, { password: 'new password!!', nested: { totpSecret: 'BBBB' } });
    expect(changes).toEqual([
      { field: 'password', secret: true },
      { field: 'nested.totpSecret', secret: true },
    ]);
    expect(diffSnapshots(null, { name: 'x', apiKey: 'sk-live' })).toEqual([{ field: 'name', after: 'x' }, { field: 'apiKey', secret: true }]);
    // Counts of tokens are no secret.
    expect(diffSnapshots({ visitorDailyTokens: 10, maxTokens: 5 }, { visitorDailyTokens: 20, maxTokens: 5 })).toEqual([{ field: 'visitorDailyTokens', before: 10, after: 20 }]);
  });

  it('cuts long text and bounds the number of changes', () => {
    const [change] = diffSnapshots({ content: 'a' }, { content: 'b'.repeat(TEXT_LIMIT * 3) });
    expect(String(change.after)).toHaveLength(TEXT_LIMIT + ' (3,000 characters)'.length + 1);
    const many = Object.fromEntries(Array.from({ length: CHANGE_LIMIT + 50 }, (_, i) => [`f${i}`, i]));
    const changes = diffSnapshots({}, many);
    expect(changes).toHaveLength(CHANGE_LIMIT);
    expect(changes[CHANGE_LIMIT - 1]).toEqual({ field: '…', after: '51 more changes not recorded' });
  });
});
