import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { createApp } from './app.factory';
import { acceptMorePerTurn } from './common/accept-handles';
import { describeDatabaseUrl, isDatabaseUnavailable } from './common/database-unavailable';
import { AppConfig, ConfigError, loadConfig } from './config/app-config';

let config: AppConfig | undefined;

async function bootstrap(): Promise<void> {
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }
  const app = await createApp(config);
  await app.listen(config.port);
  await acceptMorePerTurn(app.getHttpServer(), config.acceptHandles);
  const port = (app.getHttpServer().address() as { port: number }).port;
  const mode = [
    config.databaseUrl ? 'Postgres' : `SQLite (${config.dataDir})`,
    config.redisUrl ? 'Redis (BullMQ, socket fan-out)' : 'in-process jobs',
  ].join(', ');
  new Logger('Bootstrap').log(`Support assistant listening on http://localhost:${port} — ${mode}`);
}

// A stray rejection must not take the server down: log it and keep serving.
process.on('unhandledRejection', (reason) => {
  new Logger('Process').error('Unhandled rejection', reason instanceof Error ? reason.stack : String(reason));
});

bootstrap().catch((error: unknown) => {
  // A start that fails (database unreachable, unreadable key file, port in use) must not leave a
  // half-started process behind: say why and exit non-zero.
  const reason = error instanceof Error ? error.message : String(error);
  if (config && isDatabaseUnavailable(error)) {
    const where = config.databaseUrl ? `PostgreSQL at ${describeDatabaseUrl(config.databaseUrl)} (DATABASE_URL)` : `SQLite in ${config.dataDir}`;
    const limit = config.databaseUrl ? ` within ${config.databaseConnectTimeoutMs} ms (DATABASE_CONNECT_TIMEOUT_MS)` : '';
    new Logger('Bootstrap').error(`Could not start: cannot connect to the database, ${where}${limit}: ${reason}`);
  } else {
    new Logger('Bootstrap').error(`Could not start: ${reason}`);
  }
  process.exit(1);
});
