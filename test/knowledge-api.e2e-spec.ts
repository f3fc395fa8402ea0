import request from 'supertest';
import { KnowledgeChunk } from '../src/knowledge/knowledge-chunk.entity';
import { KnowledgeAttachment } from '../src/knowledge/knowledge-attachment.entity';
import { chatOverSocket, connectClient, startTestApp, TestApp } from './support/test-app';
import { adminAgent, AdminAgent } from './support/admin-session';

const PNG_1x1 = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

function makeItem(overrides: Record<string, unknown> = {}) {
  return { title: 'Warranty claims', content: 'Every Zentrix blender has a two year warranty covering motor failure.', category: 'Products', vertical: 'customer-service', tags: ['warranty', 'blender'], attachments: [], ...overrides };
}

describe('knowledge API', () => {
  let t: TestApp;
  let admin: AdminAgent;

  beforeAll(async () => {
    t = await startTestApp({ seedSampleKnowledge: false });
    admin = await adminAgent(t);
  });

  afterAll(async () => {
    await t?.close();
  });

  const chunksOf = (itemId: string) => t.dataSource.getRepository(KnowledgeChunk).countBy({ itemId });

  it('creates, reads, updates and deletes an item, re-indexing it each time', async () => {
    const created = await admin.post('/api/knowledge').send(makeItem()).expect(201);
    expect(created.body.success).toBe(true);
    const item = created.body.data;
    expect(item).toMatchObject({ title: 'Warranty claims', category: 'Products', vertical: 'customer-service', tags: ['warranty', 'blender'], attachments: [] });
    expect(Date.parse(item.createdAt)).not.toBeNaN();
    expect(await chunksOf(item.id)).toBeGreaterThan(0);

    const read = await admin.get(`/api/knowledge/${item.id}`).expect(200);
    expect(read.body.data).toEqual(item);

    const updated = await admin.put(`/api/knowledge/${item.id}`).send({ ...item, title: 'Blender warranty', content: 'Zentrix blenders carry a three year warranty.' }).expect(200);
    expect(updated.body.data.title).toBe('Blender warranty');
    const hits = await admin.get('/api/knowledge').query({ search: 'three year' }).expect(200);
    expect(hits.body.data.map((i: { id: string }) => i.id)).toContain(item.id);
    const stale = await admin.get('/api/knowledge').query({ search: 'motor failure' }).expect(200);
    expect(stale.body.data.map((i: { id: string }) => i.id)).not.toContain(item.id);

    await admin.delete(`/api/knowledge/${item.id}`).expect(200);
    await admin.get(`/api/knowledge/${item.id}`).expect(404);
    expect(await chunksOf(item.id)).toBe(0);
  });

  it('ranks an item whose title matches above one that mentions the word once', async () => {
    const mention = await admin.post('/api/knowledge').send(makeItem({ title: 'Store opening hours', content: 'Our stores open at nine. Ask about a gift voucher at the desk. We close at six on weekdays and at four on Saturdays.' })).expect(201);
    const titled = await admin.post('/api/knowledge').send(makeItem({ title: 'Gift voucher rules', content: 'They are valid for one year and can be spent online or in store.' })).expect(201);
    const res = await admin.get('/api/knowledge').query({ search: 'voucher' }).expect(200);
    const ids = res.body.data.map((i: { id: string }) => i.id);
    expect(ids.indexOf(titled.body.data.id)).toBeLessThan(ids.indexOf(mention.body.data.id));
    expect(ids.indexOf(mention.body.data.id)).toBeGreaterThanOrEqual(0);
  });

  it('lists newest first and filters by vertical', async () => {
    const hr = await admin.post('/api/knowledge').send(makeItem({ title: 'Dental plan', vertical: 'hr' })).expect(201);
    const all = await admin.get('/api/knowledge').expect(200);
    expect(all.body.data[0].id).toBe(hr.body.data.id);
    const onlyHr = await admin.get('/api/knowledge').query({ vertical: 'hr' }).expect(200);
    expect(onlyHr.body.data.length).toBeGreaterThan(0);
    expect(onlyHr.body.data.every((i: { vertical: string }) => i.vertical === 'hr')).toBe(true);
    await admin.get('/api/knowledge').query({ vertical: 'astrology' }).expect(400);
  });

  it.each([
    ['a title over 200 characters', { title: 'x'.repeat(201) }, 400],
    ['a missing title', { title: '' }, 400],
    ['content over 1 MB', { content: 'a'.repeat(1024 * 1024 + 1) }, 413],
    ['a category over 100 characters', { category: 'c'.repeat(101) }, 400],
    ['21 tags', { tags: Array.from({ length: 21 }, (_, i) => `tag${i}`) }, 400],
    ['a tag over 50 characters', { tags: ['t'.repeat(51)] }, 400],
    ['tags that are not a list', { tags: 'a,b' }, 400],
    ['a numeric title', { title: 42 }, 400],
    ['an unknown vertical', { vertical: 'future' }, 400],
    // PDF, DOCX, XLSX, CSV and HTML attachments arrive converted to Markdown text (POST /api/knowledge/import/file);
    // the legacy Office formats are still refused.
    ['a legacy .doc attachment', { attachments: [{ name: 'notes.doc', type: 'application/msword', content: 'x' }] }, 415],
    ['a legacy .xls attachment', { attachments: [{ name: 'prices.xls', content: 'x' }] }, 415],
    ['a PNG attachment that is not a PNG', { attachments: [{ name: 'photo.png', type: 'image/png', content: 'data:image/png;base64,aGVsbG8gd29ybGQ=' }] }, 415],
    ['an image declared with another type', { attachments: [{ name: 'photo.png', type: 'image/gif', content: PNG_1x1 }] }, 415],
    ['an image that is not a data URL', { attachments: [{ name: 'photo.jpg', type: 'image/jpeg', content: 'not base64 at all' }] }, 400],
    ['an attachment without a name', { attachments: [{ type: 'text/plain', content: 'x' }] }, 400],
    ['attachments that are not a list', { attachments: 'none' }, 400],
  ])('refuses %s', async (_name, override, status) => {
    const res = await admin.post('/api/knowledge').send(makeItem(override));
    expect(res.status).toBe(status);
    expect(res.body).toMatchObject({ success: false, error: { code: expect.any(String), message: expect.any(String) } });
  });

  it('accepts a 10 MB text attachment and refuses 10 MB + 1 byte with 413', async () => {
    const limit = 10 * 1024 * 1024;
    const ok = await admin.post('/api/knowledge').send(makeItem({ title: 'Big manual', attachments: [{ name: 'manual.txt', type: 'text/plain', content: 'a'.repeat(limit) }] }));
    expect(ok.status).toBe(201);
    expect(ok.body.data.attachments[0]).toMatchObject({ name: 'manual.txt', size: limit });
    const over = await admin.post('/api/knowledge').send(makeItem({ title: 'Too big', attachments: [{ name: 'manual.txt', type: 'text/plain', content: 'a'.repeat(limit + 1) }] }));
    expect(over.status).toBe(413);
    expect(over.body.error.code).toBe('payload_too_large');
  });

  it('refuses a 10 MB + 1 byte image by decoded size and stores a PNG and a TXT attachment', async () => {
    const bytes = Buffer.alloc(10 * 1024 * 1024 + 1);
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(bytes);
    const big = await admin.post('/api/knowledge').send(makeItem({ attachments: [{ name: 'huge.png', type: 'image/png', content: `data:image/png;base64,${bytes.toString('base64')}` }] }));
    expect(big.status).toBe(413);

    const res = await admin
      .post('/api/knowledge')
      .send(makeItem({ title: 'Setup guide', attachments: [{ name: 'diagram.PNG', type: 'image/png', content: PNG_1x1 }, { name: 'steps.txt', type: 'text/plain', content: 'Hold the quartzite button for five seconds to pair.' }] }))
      .expect(201);
    const [png, txt] = res.body.data.attachments;
    expect(png).toMatchObject({ name: 'diagram.PNG', type: 'image/png', size: 70, content: PNG_1x1 });
    expect(txt).toMatchObject({ name: 'steps.txt', type: 'text/plain', size: 51 });
    // Text attachments are searchable with the item.
    const found = await admin.get('/api/knowledge').query({ search: 'quartzite' }).expect(200);
    expect(found.body.data[0].id).toBe(res.body.data.id);
    // The list leaves attachment content out; a PUT that sends it back without content keeps it.
    const listed = found.body.data[0];
    expect(listed.attachments[0].content).toBeUndefined();
    const kept = await admin.put(`/api/knowledge/${listed.id}`).send({ ...listed, attachments: [listed.attachments[1]] }).expect(200);
    expect(kept.body.data.attachments).toHaveLength(1);
    expect(kept.body.data.attachments[0].content).toBe('Hold the quartzite button for five seconds to pair.');
    expect(await t.dataSource.getRepository(KnowledgeAttachment).countBy({ itemId: listed.id })).toBe(1);
  });

  it('answers 404 for an unknown id on read, update and delete', async () => {
    await admin.get('/api/knowledge/does-not-exist').expect(404);
    await admin.put('/api/knowledge/does-not-exist').send(makeItem()).expect(404);
    await admin.delete('/api/knowledge/does-not-exist').expect(404);
  });

  it('never answers 500 to text with a NUL character (Postgres cannot store U+0000), and stores nothing half-way', async () => {
    const before = (await admin.get('/api/knowledge').expect(200)).body.data.length;
    const created = await admin.post('/api/knowledge').send(makeItem({ title: 'Nul\u0000title', content: 'abc\u0000def', tags: ['a\u0000b'] }));
    // SQLite stores the character; Postgres refuses it, and the whole write is rolled back.
    expect([201, 400]).toContain(created.status);
    if (created.status === 400) {
      expect(created.body.error.message).toMatch(/cannot be stored/);
      expect((await admin.get('/api/knowledge').expect(200)).body.data.length).toBe(before);
    }
    // An unknown id (404 on SQLite, 400 on Postgres); an agent nobody has (no rows on SQLite).
    for (const path of ['/api/knowledge/%00abc', '/api/analytics/agents?hours=24&agentId=%00']) {
      const res = await admin.get(path);
      expect(res.status).toBeLessThan(500);
      expect(res.body.success).toBe(res.status < 400);
    }
    // In a search it is a space: the item is still found by its words.
    await admin.post('/api/knowledge').send(makeItem()).expect(201);
    const hits = await admin.get('/api/knowledge').query({ search: '\u0000Zentrix blender' }).expect(200);
    expect(hits.body.data.length).toBeGreaterThan(0);
    const login = await request(t.url).post('/api/auth/login-password').send({ email: 'a\u0000@example.com', password: 'correct horse battery' });
    expect(login.status).toBeGreaterThanOrEqual(400);
    expect(login.status).toBeLessThan(500);
  });

  it('a concurrent update and delete of one item leave no orphan chunk', async () => {
    for (let round = 0; round < 5; round += 1) {
      const item = (await admin.post('/api/knowledge').send(makeItem({ title: `Race ${round}`, content: 'word '.repeat(2000) })).expect(201)).body.data;
      const [upd, del] = await Promise.all([
        admin.put(`/api/knowledge/${item.id}`).send({ ...item, content: 'other '.repeat(3000) }),
        admin.delete(`/api/knowledge/${item.id}`),
      ]);
      expect([200, 404]).toContain(upd.status);
      expect(del.status).toBe(200);
      expect(await chunksOf(item.id)).toBe(0);
    }
    const orphans = await t.dataSource.query('SELECT COUNT(*) AS n FROM knowledge_chunks c WHERE NOT EXISTS (SELECT 1 FROM knowledge_items i WHERE i.id = c.item_id)');
    expect(Number(orphans[0].n)).toBe(0);
  });

  it("a reply's source carries the passage it cites: the best-matching passage of that item, not the whole item (/interact, chat:done)", async () => {
    // Three paragraphs of ~130 words: three passages; only the last one speaks of the voucher.
    const filler = (topic: string) => Array.from({ length: 13 }, (_, i) => `The ${topic} ledger entry ${i + 1} is reviewed by the harbour office every quarter.`).join(' ');
    const content = [filler('cobalt'), filler('granite'), `${filler('saffron')} The quokka onboarding voucher gives every new reseller forty free training seats in their first month.`].join('\n\n');
    const item = (await admin.post('/api/knowledge').send(makeItem({ title: 'Reseller programme handbook', content, vertical: 'sales' })).expect(201)).body.data;
    const squeeze = (text: string) => text.replace(/\s+/g, '');
    const published = (await request(t.url).get(`/api/public/knowledge/${item.id}`).expect(200)).body.data.content as string;

    const viaHttp = (await request(t.url).post('/interact').send({ vertical: 'sales', query: 'What does the quokka onboarding voucher give resellers?' }).expect(200)).body.data;
    const source = viaHttp.sources[0];
    expect(source).toMatchObject({ id: item.id, title: 'Reseller programme handbook' });
    expect(source.passage).toContain('quokka onboarding voucher');
    // A passage of this item (its words in order, white space aside), shorter than the item.
    expect(squeeze(published)).toContain(squeeze(source.passage));
    expect(source.passage.length).toBeLessThan(published.length / 2);
    expect(source.passage).not.toContain('cobalt');

    const socket = await connectClient(t.url);
    try {
      const viaSocket = await chatOverSocket(socket, { vertical: 'sales', query: 'What does the quokka onboarding voucher give resellers?' });
      expect(viaSocket.done!.sources[0]).toEqual(source);
    } finally {
      socket.close();
    }
  });

  it('an added item answers a chat question worded differently from its title, and is cited', async () => {
    const item = (await admin.post('/api/knowledge').send(makeItem({ title: 'Lost luggage compensation', content: 'If the airline misplaces your suitcase, file a property irregularity report at the airport and claim up to 1,500 euros for essentials bought while you wait.', vertical: 'customer-service' })).expect(201)).body.data;
    const socket = await connectClient(t.url);
    try {
      const result = await chatOverSocket(socket, { vertical: 'customer-service', query: 'The airline lost my suitcase, what can I claim?' });
      expect(result.done!.sources[0]).toMatchObject({ id: item.id, title: 'Lost luggage compensation' });
      expect(result.done!.response).toContain('property irregularity report');
    } finally {
      socket.close();
    }
  });

  it('a visitor (no session) opens a cited source: its text only, no attachments or admin fields; unknown ids are 404', async () => {
    const item = (await admin.post('/api/knowledge').send(makeItem({ title: 'Return shipping labels', content: 'Print the **prepaid label** from your order page.', attachments: [{ name: 'label.png', type: 'image/png', size: 68, content: PNG_1x1 }] })).expect(201)).body.data;
    const read = await request(t.url).get(`/api/public/knowledge/${item.id}`).expect(200);
    expect(read.body).toEqual({
      success: true,
      data: { id: item.id, title: 'Return shipping labels', content: 'Print the **prepaid label** from your order page.', vertical: 'customer-service', jurisdiction: null, subRegion: null, url: null, updatedAt: item.updatedAt },
    });
    const missing = await request(t.url).get('/api/public/knowledge/00000000-0000-4000-8000-000000000000').expect(404);
    expect(missing.body).toMatchObject({ success: false, error: { code: 'not_found' } });
    // The admin list stays private.
    await request(t.url).get('/api/knowledge').expect(401);
  });
});
