/**
 * Answers visitors can trust, on a fresh install's sample knowledge,
 * through the real app (offline knowledge responder), over POST /interact and the socket.
 */
import request from 'supertest';
import { detectLanguage } from '../src/retrieval/language';
import type { ReplyData } from '../src/shared/contracts/chat';
import { AdminAgent, adminAgent } from './support/admin-session';
import { chatOverSocket, ClientSocket, connectClient, eventually, startTestApp, TestApp } from './support/test-app';

/** A fresh app with the sample knowledge, an admin session and a visitor socket, for one describe block. */
function sampleApp(): { t: TestApp; admin: AdminAgent; socket: ClientSocket } {
  const app = {} as { t: TestApp; admin: AdminAgent; socket: ClientSocket };
  beforeAll(async () => {
    app.t = await startTestApp();
    app.admin = await adminAgent(app.t);
    app.socket = await connectClient(app.t.url);
  });
  afterAll(async () => {
    app.socket?.close();
    await app.t?.close();
  });
  return app;
}

describe('answers from the sample knowledge: relevance floor, suggestions, other languages', () => {
  const app = sampleApp();

  async function ask(vertical: string, query: string, preferredLanguage = 'English'): Promise<ReplyData> {
    const res = await request(app.t.url).post('/interact').send({ vertical, query, preferredLanguage, userId: 'demo-user' }).expect(200);
    return res.body.data as ReplyData;
  }

  async function answeredInUsage(replyId: string | undefined): Promise<boolean | null> {
    const row = await eventually(async () => {
      const rows: { answered: number | null }[] = await app.t.dataSource.query(app.t.config.databaseUrl ? 'SELECT answered FROM usage_events WHERE id = $1' : 'SELECT answered FROM usage_events WHERE id = ?', [replyId]);
      return rows[0];
    }, 5000, 'the usage event');
    return row.answered === null ? null : Number(row.answered) === 1;
  }

  it('the vacation question asked in Customer Support is not found there, says so, and suggests Employee Support; its usage event is unanswered', async () => {
    const data = await ask('customer-service', 'How many vacation days do I get?');
    expect(data.sources).toEqual([]);
    expect(data.answered).toBe(false);
    expect(data.suggestedVertical).toBe('hr');
    expect(data.confidence).toBeLessThan(0.7);
    expect(data.response).toContain("I couldn't find anything in our knowledge base that answers this.");
    expect(data.response).toContain('This looks like an Employee Support question: you can ask it in the Employee Support tab.');
    expect(data.response).not.toContain('Shipping');
    expect(await answeredInUsage(data.replyId)).toBe(false);
  });

  it('asked in Employee Support, the same question is answered from "Paid time off (PTO)"; its usage event is answered', async () => {
    const data = await ask('hr', 'How many vacation days do I get?');
    expect(data.sources.map((s) => s.title)).toEqual(['Paid time off (PTO)']);
    expect(data.answered).toBe(true);
    expect(data.suggestedVertical).toBeUndefined();
    expect(data.confidence).toBeGreaterThanOrEqual(0.7);
    expect(data.response).toContain('20 days of paid time off');
    expect(await answeredInUsage(data.replyId)).toBe(true);
  });

  it('"what\'s your return policy" cites "Returns and refunds" first, and no unrelated item', async () => {
    const data = await ask('customer-service', "what's your return policy");
    expect(data.sources[0].title).toBe('Returns and refunds');
    expect(data.sources.map((s) => s.title)).not.toContain('Shipping times and costs');
    expect(data.sources.map((s) => s.title)).not.toContain('Resetting your password');
  });

  it('"My package has not arrived" leads with "Tracking your order"', async () => {
    const data = await ask('customer-service', 'My package has not arrived');
    expect(data.sources[0].title).toBe('Tracking your order');
    expect(data.answered).toBe(true);
  });

  it('an item just added, "Refund window for hardware orders", is cited for the laptop question (over the socket), and the password article is not', async () => {
    await app.admin
      .post('/api/knowledge')
      .send({
        title: 'Refund window for hardware orders',
        content: 'Hardware such as laptops, tablets and monitors can be returned within 45 days of delivery for a full refund, in its original packaging.',
        category: 'Policies',
        vertical: 'customer-service',
        tags: ['returns', 'hardware'],
      })
      .expect(201);
    const result = await chatOverSocket(app.socket, { vertical: 'customer-service', query: 'Can I send back a laptop I bought last month and get my money back?' });
    const titles = result.done!.sources.map((s) => s.title);
    expect(titles).toContain('Refund window for hardware orders');
    expect(titles).not.toContain('Resetting your password');
    expect(titles.length).toBeLessThanOrEqual(3);
    expect(result.done!.response).toContain('45 days');
  });

  it('offline, a French question finds the English item (word by word through the bilingual lexicon) and the reply is in French', async () => {
    const data = await ask('customer-service', 'Comment réinitialiser mon mot de passe ?', 'French');
    expect(data.answered).toBe(true);
    expect(data.sources[0].title).toBe('Resetting your password');
    expect(data.response).toMatch(/^Voici ce que j’ai trouvé dans notre base de connaissances/);
    expect(data.response).toContain('Forgot password?');
  });

  it('offline, the Spanish refund question cites the refund items only ("Returns and refunds" and the hardware refund window added above)', async () => {
    const data = await ask('customer-service', '¿Cómo puedo obtener un reembolso de mi pedido?', 'Spanish');
    const titles = data.sources.map((s) => s.title);
    expect(titles).toContain('Returns and refunds');
    expect(titles.every((title) => /refund/i.test(title))).toBe(true);
    expect(data.response).toMatch(/^Esto es lo que encontré en nuestra base de conocimiento:/);
  });

  it.each([
    ['Spanish', '¿Cuántos días de vacaciones tengo?', /^Esto es lo que encontré/],
    ['French', 'Combien de jours de congés ai-je ?', /^Voici ce que j’ai trouvé/],
    ['German', 'Wie viele Urlaubstage habe ich?', /^Das habe ich in unserer Wissensdatenbank gefunden/],
    ['Italian', 'Quanti giorni di ferie ho?', /^Ecco cosa ho trovato/],
    ['Portuguese', 'Quantos dias de férias eu tenho?', /^Aqui está o que encontrei/],
  ])('offline, the vacation question in %s is answered from "Paid time off (PTO)" first, in that language', async (language, query, opening) => {
    const data = await ask('hr', query, language);
    expect(data.answered).toBe(true);
    expect(data.sources[0].title).toBe('Paid time off (PTO)');
    expect(data.response).toMatch(opening);
    expect(data.response).toContain('20 days of paid time off');
  });

  it('offline, the not-found reply to a French question is in French', async () => {
    const data = await ask('customer-service', 'Comment jouer aux échecs ?', 'French');
    expect(data.answered).toBe(false);
    expect(data.sources).toEqual([]);
    expect(data.response).toMatch(/^Je n’ai rien trouvé dans notre base de connaissances/);
    expect(data.response).toContain('Pourriez-vous reformuler la question');
    expect(detectLanguage(data.response)).toBe('fr');
  });

  it('an answer in another language than the knowledge quotes it as written, under a line naming its language', async () => {
    const data = await ask('customer-service', 'How do I reset my password?', 'Spanish');
    expect(data.sources[0].title).toBe('Resetting your password');
    expect(data.response).toMatch(/^Esto es lo que encontré en nuestra base de conocimiento:\n\(Los fragmentos siguientes se citan tal como están escritos, en inglés\.\)/);
    expect(data.response).toContain('Forgot password?');
  });

  it('Analytics shows the "Answered from knowledge" rate beside the success rate', async () => {
    // Everything this suite asked went through the offline responder of its vertical's agent.
    const agents = await eventually(async () => {
      const res = await app.admin.get('/api/analytics/agents?hours=1').expect(200);
      const rows = res.body.data as { agentId: string; totalRequests: number; answeredRate: number | null; errorRate: number }[];
      const cs = rows.find((r) => r.agentId === 'customer-service-agent');
      return cs && cs.totalRequests >= 8 ? rows : undefined;
    }, 5000, 'the agents analytics');
    const cs = agents.find((r) => r.agentId === 'customer-service-agent')!;
    const hr = agents.find((r) => r.agentId === 'hr-agent')!;
    // Customer Support: vacation and chess not found; return policy, package, laptop, French
    // password, Spanish refund and the English question answered in Spanish answered.
    expect(cs.totalRequests).toBe(8);
    expect(cs.answeredRate).toBeCloseTo(6 / 8, 4);
    expect(cs.errorRate).toBe(0);
    // Employee Support: the English vacation question and its five translations, all answered.
    expect(hr.totalRequests).toBe(6);
    expect(hr.answeredRate).toBe(1);
    const system = (await app.admin.get('/api/analytics/system?hours=1').expect(200)).body.data as { answeredRate: number | null };
    expect(system.answeredRate).toBeCloseTo(12 / 14, 4);
  });

  // After the analytics check above, which counts what this suite asked before it.
  it('an API caller that names no reply language is answered in the language the question is written in', async () => {
    const res = await request(app.t.url).post('/interact').send({ vertical: 'customer-service', query: 'Comment réinitialiser mon mot de passe ?' }).expect(200);
    expect(res.body.data.response).toMatch(/^Voici ce que j’ai trouvé dans notre base de connaissances/);
    const notFound = await request(app.t.url).post('/interact').send({ vertical: 'customer-service', query: '¿Cómo juego al ajedrez?' }).expect(200);
    expect(notFound.body.data.response).toMatch(/^No encontré nada en nuestra base de conocimiento/);
    // Named, it wins over the question's language.
    const named = await request(app.t.url).post('/interact').send({ vertical: 'customer-service', query: 'Comment réinitialiser mon mot de passe ?', preferredLanguage: 'English' }).expect(200);
    expect(named.body.data.response).toMatch(/^Here's what I found in our knowledge base/);
  });

  it('small talk ("hi", "merci !") is answered in kind and counted neither answered nor unanswered', async () => {
    const hello = await ask('customer-service', 'hi');
    expect(hello.response).toBe('Hello! What can I help you with? Ask me a question and I will look for the answer in our knowledge base.');
    expect(hello.answered).toBeUndefined();
    expect(hello.sources).toEqual([]);
    expect(await answeredInUsage(hello.replyId)).toBeNull();
    const thanks = await ask('customer-service', 'merci !', 'French');
    expect(thanks.response).toBe('Je vous en prie ! Puis-je vous aider pour autre chose ?');
    expect(await answeredInUsage(thanks.replyId)).toBeNull();
  });
});


/**
 * What outside testers found on a fresh install's sample knowledge: each numbered point of their
 * report, through the real app (offline knowledge responder), as a visitor or an API caller asks.
 */
describe('answers to what outside use found', () => {
  const app = sampleApp();

  /** As an API caller that names no reply language (the question's language decides). */
  async function ask(vertical: string, query: string, extra: Record<string, unknown> = {}): Promise<ReplyData> {
    const res = await request(app.t.url).post('/interact').send({ vertical, query, userId: 'demo-user', ...extra }).expect(200);
    return res.body.data as ReplyData;
  }

  it('1. English questions with "I" and "a" are answered in English, over /interact and the socket ("Can I return a sofa?", "Can I expense a taxi?", "Can I bring a guest?")', async () => {
    const sofa = await ask('customer-service', 'Can I return a sofa?');
    expect(sofa.response).toMatch(/^Here's what I found in our knowledge base:/);
    expect(sofa.sources[0].title).toBe('Returns and refunds');
    const taxi = await chatOverSocket(app.socket, { vertical: 'hr', query: 'Can I expense a taxi?' });
    expect(taxi.done!.response).toMatch(/^Here's what I found in our knowledge base:/);
    expect(taxi.done!.sources[0].title).toBe('Expenses and reimbursement');
    const guest = await ask('hr', 'Can I bring a guest?');
    expect(guest.answered).toBe(false);
    expect(guest.response).toMatch(/^I couldn't find anything in our knowledge base that answers this\./);
    const guestOverSocket = await chatOverSocket(app.socket, { vertical: 'hr', query: 'Can I bring a guest?' });
    expect(guestOverSocket.done!.response).toMatch(/^I couldn't find anything in our knowledge base/);
  });

  it('2. Legal (US, California): "I was fired without notice, is that legal?" is "not found", not the tenant-rights article; a tenancy question still finds it', async () => {
    const fired = await ask('legal', 'I was fired without notice, is that legal?', { jurisdiction: 'US', subJurisdiction: 'California', preferredLanguage: 'English' });
    expect(fired.answered).toBe(false);
    expect(fired.sources).toEqual([]);
    expect(fired.confidence).toBe(0);
    expect(fired.response).not.toContain('Tenant rights');
    expect(fired.response).toMatch(/^I couldn't find anything in our knowledge base/);
    const deposit = await ask('legal', 'Can my landlord keep my security deposit?', { jurisdiction: 'US', subJurisdiction: 'California', preferredLanguage: 'English' });
    expect(deposit.sources[0].title).toBe('Tenant rights when renting a home');
  });

  it('3. a number alone clears no floor: "thanks 9" cites nothing (not even an item titled "Shared mime info spec 2.9.") and is taken as thanks', async () => {
    await app.admin
      .post('/api/knowledge')
      .send({ title: 'Shared mime info spec 2.9.', content: 'Version 2.9 of the shared MIME info specification adds 9 new glob rules.', category: 'Docs', vertical: 'customer-service', tags: [] })
      .expect(201);
    const thanks = await ask('customer-service', 'thanks 9', { preferredLanguage: 'English' });
    expect(thanks.sources).toEqual([]);
    expect(thanks.response).toBe("You're welcome! Is there anything else I can help you with?");
    const number = await ask('customer-service', '9', { preferredLanguage: 'English' });
    expect(number.sources).toEqual([]);
    expect(number.confidence).toBe(0);
  });

  it('4. the Arabic refund question, the German warranty question and "it\'s been 6 weeks" find their sample items, in the language asked', async () => {
    const arabic = await ask('customer-service', 'كم تستغرق عملية الاسترداد؟');
    expect(arabic.answered).toBe(true);
    expect(arabic.sources[0].title).toBe('Returns and refunds');
    expect(arabic.response).toMatch(/^إليك ما وجدته في قاعدة المعرفة لدينا:/);
    const german = await ask('customer-service', 'Wie lange gilt die Garantie?');
    expect(german.sources[0].title).toBe('Product warranty');
    expect(german.response).toMatch(/^Das habe ich in unserer Wissensdatenbank gefunden:/);
    expect(german.response).toContain('2-year limited warranty');
    const headphones = await ask('customer-service', "I want to return my headphones, it's been 6 weeks");
    expect(headphones.sources[0].title).toBe('Returns and refunds');
    expect(headphones.response).toContain('within 30 days of delivery');
  });

  it('4. "Hola" gets a Spanish greeting on an English page, and "ok thanks, bye" a short goodbye that asks nothing back', async () => {
    const hola = await ask('customer-service', 'Hola', { preferredLanguage: 'English' });
    expect(hola.response).toBe('¡Hola! ¿En qué puedo ayudarle? Hágame una pregunta y buscaré la respuesta en nuestra base de conocimiento.');
    const bye = await ask('customer-service', 'ok thanks, bye', { preferredLanguage: 'English' });
    expect(bye.response).toBe('Goodbye, and thank you for getting in touch!');
    const adios = await ask('customer-service', 'gracias, adiós', { preferredLanguage: 'Spanish' });
    expect(adios.response).toBe('¡Adiós, y gracias por ponerse en contacto con nosotros!');
  });

  it('5. a "not found" reply carries confidence 0, and an answer whose first source stands out is confident', async () => {
    const notFound = await ask('customer-service', 'How many vacation days do I get?', { preferredLanguage: 'English' });
    expect(notFound).toMatchObject({ answered: false, sources: [], confidence: 0, suggestedVertical: 'hr' });
    const chess = await ask('customer-service', 'How do I play chess?', { preferredLanguage: 'English' });
    expect(chess).toMatchObject({ answered: false, confidence: 0 });
    const pto = await ask('hr', 'How many vacation days do I get?', { preferredLanguage: 'English' });
    expect(pto.sources[0].title).toBe('Paid time off (PTO)');
    expect(pto.confidence).toBeGreaterThanOrEqual(0.7);
  });
});
