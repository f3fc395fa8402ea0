/**
 * Jurisdiction-scoped legal knowledge through the real app: legal items carry an optional
 * jurisdiction and sub-region (API with its contract, list filter), and a legal question
 * retrieves the visitor's jurisdiction and sub-region plus general items, never another
 * jurisdiction's, even when those would rank higher; a reply from general items says so.
 */
import request from 'supertest';
import type { ReplyData } from '../src/shared/contracts/chat';
import { AdminAgent, adminAgent } from './support/admin-session';
import { startTestApp, TestApp } from './support/test-app';

describe('jurisdiction-scoped legal knowledge', () => {
  let t: TestApp;
  let admin: AdminAgent;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    t = await startTestApp({ seedSampleKnowledge: false });
    admin = await adminAgent(t);
    const items = {
      california: {
        title: 'Security deposits in California',
        content:
          'In California a landlord may ask for a security deposit of at most one month of rent for most rentals. ' +
          'The deposit must be returned within 21 days after the tenant moves out, with an itemised statement of deductions.',
        vertical: 'legal',
        jurisdiction: 'US',
        subRegion: 'california',
      },
      texas: {
        title: 'Security deposits in Texas',
        content:
          'Texas law sets no cap on the security deposit a landlord may ask for. The landlord must refund the security deposit ' +
          'within 30 days after the tenant surrenders the premises. Rodeo grounds leases follow the same security deposit rule.',
        vertical: 'legal',
        jurisdiction: 'US',
        subRegion: 'Texas',
      },
      federal: {
        title: 'Fair housing and security deposits under federal law',
        content:
          'Federal fair housing law forbids charging a higher security deposit because of race, religion, sex, disability or familial status. ' +
          'Amounts and refund deadlines are set by each state.',
        vertical: 'legal',
        jurisdiction: 'US',
      },
      general: {
        title: 'What a security deposit is',
        content: 'A security deposit is money a tenant pays a landlord at the start of a lease to cover unpaid rent or damage. Keep the receipt.',
        vertical: 'legal',
      },
    };
    for (const [key, item] of Object.entries(items)) ids[key] = (await admin.post('/api/knowledge').send(item).expect(201)).body.data.id;
  });

  afterAll(async () => {
    await t?.close();
  });

  async function ask(query: string, jurisdiction: string, subJurisdiction?: string): Promise<ReplyData> {
    const res = await request(t.url).post('/interact').send({ vertical: 'legal', query, jurisdiction, subJurisdiction, userId: 'demo-user', preferredLanguage: 'English' }).expect(200);
    return res.body.data as ReplyData;
  }

  it('stores the jurisdiction and the sub-region (canonical spelling) and returns them', async () => {
    const item = (await admin.get(`/api/knowledge/${ids.california}`).expect(200)).body.data;
    expect(item).toMatchObject({ jurisdiction: 'US', subRegion: 'California' });
    const general = (await admin.get(`/api/knowledge/${ids.general}`).expect(200)).body.data;
    expect(general).toMatchObject({ jurisdiction: null, subRegion: null });
  });

  it('refuses a jurisdiction on a non-legal item, an unknown one, and a sub-region of another jurisdiction', async () => {
    const hr = await admin.post('/api/knowledge').send({ title: 'Leave', content: 'x', vertical: 'hr', jurisdiction: 'US' }).expect(400);
    expect(hr.body.error.message).toBe('Only Legal items have a jurisdiction; Employee Support items apply everywhere');
    const unknown = await admin.post('/api/knowledge').send({ title: 'X', content: 'x', vertical: 'legal', jurisdiction: 'FR' }).expect(400);
    expect(unknown.body.error.message).toBe('Jurisdiction must be one of US, UK, EU, IN, JP, AE');
    const wrong = await admin.post('/api/knowledge').send({ title: 'X', content: 'x', vertical: 'legal', jurisdiction: 'UK', subRegion: 'Texas' }).expect(400);
    expect(wrong.body.error.message).toBe('Texas is not a region of United Kingdom');
    const orphan = await admin.post('/api/knowledge').send({ title: 'X', content: 'x', vertical: 'legal', subRegion: 'Texas' }).expect(400);
    expect(orphan.body.error.message).toBe('Choose the jurisdiction that "Texas" belongs to');
    const none = await admin.post('/api/knowledge').send({ title: 'X', content: 'x', vertical: 'legal', jurisdiction: 'EU', subRegion: 'Bavaria' }).expect(400);
    expect(none.body.error.message).toBe('European Union has no sub-regions to choose from');
  });

  it('filters the list by jurisdiction, sub-region, or none', async () => {
    const titles = async (query: string) => ((await admin.get(`/api/knowledge?${query}`).expect(200)).body.data as { title: string }[]).map((i) => i.title).sort();
    expect(await titles('vertical=legal&jurisdiction=US')).toEqual(['Fair housing and security deposits under federal law', 'Security deposits in California', 'Security deposits in Texas']);
    expect(await titles('vertical=legal&jurisdiction=us&subRegion=Texas')).toEqual(['Security deposits in Texas']);
    expect(await titles('jurisdiction=none&vertical=legal')).toEqual(['What a security deposit is']);
    expect(await titles('jurisdiction=US&search=deposit')).toEqual(['Fair housing and security deposits under federal law', 'Security deposits in California', 'Security deposits in Texas']);
    const bad = await admin.get('/api/knowledge?jurisdiction=Mars').expect(400);
    expect(bad.body.error.message).toBe('The jurisdiction filter must be none or one of US, UK, EU, IN, JP, AE');
  });

  it('a California visitor gets California, United States and general items, never the Texas item', async () => {
    const data = await ask('How much security deposit can my landlord ask for, and when must it be refunded?', 'US', 'California');
    const cited = data.sources.map((s) => s.id);
    expect(cited).toContain(ids.california);
    expect(cited).not.toContain(ids.texas);
    expect(data.response).not.toContain('Texas');
    expect(data.generalOnly).toBeUndefined();
    // A question that only the Texas item answers is "not found" for them.
    const rodeo = await ask('What security deposit rule applies to rodeo grounds leases?', 'US', 'California');
    expect(rodeo.sources.map((s) => s.id)).not.toContain(ids.texas);
    expect(rodeo.response).not.toContain('Rodeo');
  });

  it('a Texas visitor gets the Texas item and never the California one', async () => {
    const data = await ask('How much security deposit can my landlord ask for, and when must it be refunded?', 'US', 'Texas');
    expect(data.sources.map((s) => s.id)).toContain(ids.texas);
    expect(data.sources.map((s) => s.id)).not.toContain(ids.california);
  });

  it('another jurisdiction gets general items only, and the reply says it found only general information', async () => {
    const data = await ask('What is a security deposit?', 'UK', 'Scotland');
    expect(data.sources.map((s) => s.id)).toEqual([ids.general]);
    expect(data.generalOnly).toBe(true);
    expect(data.response).toMatch(/^I found only general information, nothing specific to Scotland, United Kingdom\./);
    const spanish = (await request(t.url)
      .post('/interact')
      .send({ vertical: 'legal', query: 'What is a security deposit?', jurisdiction: 'JP', userId: 'demo-user', preferredLanguage: 'Spanish' })
      .expect(200)).body.data as ReplyData;
    expect(spanish.response).toMatch(/^Solo encontré información general, nada específico de Japan\./);
  });

  it('leaves other jurisdictions out while ranking: 200+ better-matching Texas chunks do not push the California item out', async () => {
    const paragraph = (n: number) =>
      `Texas rule ${n}: how much security deposit may a landlord ask for? A Texas landlord may ask for as much security deposit as the lease says. `.repeat(6);
    const content = Array.from({ length: 230 }, (_, n) => paragraph(n)).join('\n\n');
    const crowd = (await admin.post('/api/knowledge').send({ title: 'How much security deposit a Texas landlord may ask for', content, vertical: 'legal', jurisdiction: 'US', subRegion: 'Texas' }).expect(201)).body.data.id;
    const chunks: { n: number | string }[] = await t.dataSource.query(t.config.databaseUrl ? 'SELECT count(*) AS n FROM knowledge_chunks WHERE item_id = $1' : 'SELECT count(*) AS n FROM knowledge_chunks WHERE item_id = ?', [crowd]);
    expect(Number(chunks[0].n)).toBeGreaterThan(200);
    const data = await ask('How much security deposit may a landlord ask for?', 'US', 'California');
    expect(data.sources.map((s) => s.id)).toContain(ids.california);
    expect(data.sources.map((s) => s.id)).not.toContain(crowd);
    expect(data.sources.map((s) => s.id)).not.toContain(ids.texas);
  });
});
