/**
 * Redis and Postgres for the fault tests that run several app processes: the shared services
 * (a schema of their own) when the environment names them (CI), else instances of our own on free
 * ports (test/support/service-instances).
 */
import { dropPostgresSchema } from '../../../src/database/data-source';
import { PostgresInstance, RedisInstance } from '../../support/service-instances';
import { distributed, uniqueSchema } from '../../support/test-app';

export interface SharedServices {
  databaseUrl: string;
  redisUrl: string;
  /** The Postgres schema of this test (shared services only). */
  schema: string | undefined;
  close(): Promise<void>;
}

export async function sharedServices(): Promise<SharedServices> {
  if (distributed.databaseUrl && distributed.redisUrl) {
    const schema = uniqueSchema();
    const databaseUrl = distributed.databaseUrl;
    return { databaseUrl, redisUrl: distributed.redisUrl, schema, close: () => dropPostgresSchema(databaseUrl, schema) };
  }
  const [redis, postgres] = await Promise.all([RedisInstance.start(), PostgresInstance.start()]);
  return {
    databaseUrl: postgres.url,
    redisUrl: redis.url,
    schema: undefined,
    async close() {
      await Promise.all([redis.stop(), postgres.destroy()]);
    },
  };
}
