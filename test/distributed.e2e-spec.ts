/**
 * Two servers on one Redis and one database: the Socket.IO Redis adapter joins them.
 * Needs REDIS_URL (and uses DATABASE_URL when set); .ci/run always sets both.
 */
import request from 'supertest';
import { ChatGateway } from '../src/chat/chat.gateway';
import { chatOverSocket, connectClient, distributed, startTestApp, uniqueSchema } from './support/test-app';

// Without Redis there is nothing to join servers with; .ci/run sets REDIS_URL so this always runs in CI.
const describeWithRedis = distributed.redisUrl ? describe : describe.skip;

describeWithRedis('two servers joined through Redis', () => {
  it('an event emitted on server A reaches a client of server B, and both answer chats from one database', async () => {
    const schema = distributed.databaseUrl ? uniqueSchema() : undefined;
    const a = await startTestApp({ databaseSchema: schema });
    const b = await startTestApp({ databaseSchema: schema, dataDir: a.config.dataDir, redisPrefix: a.config.redisPrefix });
    const clientOfB = await connectClient(b.url);
    try {
      const received = new Promise<{ status: string; timestamp: string }>((resolve) => {
        clientOfB.on('health', (push) => {
          if (push.timestamp === '2030-01-01T00:00:00.000Z') resolve(push);
        });
      });
      a.app.get(ChatGateway).server.emit('health', { status: 'healthy', overallHealth: 'healthy', timestamp: '2030-01-01T00:00:00.000Z' });
      await expect(received).resolves.toMatchObject({ status: 'healthy' });

      const viaB = await chatOverSocket(clientOfB, { vertical: 'hr', query: 'How does parental leave work?' });
      expect(viaB.done?.sources.length).toBeGreaterThan(0);
      const viaA = await request(a.url).post('/interact').send({ vertical: 'hr', query: 'How does parental leave work?' }).expect(200);
      expect(viaA.body.data.sources[0].id).toBe(viaB.done!.sources[0].id);
    } finally {
      clientOfB.close();
      await b.close({ keepData: true });
      await a.close();
    }
  });
});
