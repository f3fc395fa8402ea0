/**
 * Restarting the app on the port it had, for browser tests of the page's reconnection: the page
 * keeps its URL, so the new server must listen where the old one did. startTestApp always picks
 * a free port; this starts another app with a stopped one's configuration (same data) on a given port.
 */
import type { NestExpressApplication } from '@nestjs/platform-express';
import * as fs from 'node:fs';
import { createApp } from '../../../src/app.factory';
import type { AppConfig } from '../../../src/config/app-config';
import { dropPostgresSchema } from '../../../src/database/data-source';

export interface RestartedApp {
  app: NestExpressApplication;
  url: string;
  /** Stops the app and removes the data it shared with the first app (temporary dir or schema). */
  close(): Promise<void>;
}

export function portOf(url: string): number {
  return Number(new URL(url).port);
}

/** Starts the app with `config` on 127.0.0.1:`port` (the first app must have closed with keepData). */
export async function startAppOnPort(config: AppConfig, port: number): Promise<RestartedApp> {
  const app = await createApp({ ...config, port });
  await app.listen(port, '127.0.0.1');
  return {
    app,
    url: `http://127.0.0.1:${port}`,
    async close() {
      await app.close();
      if (config.databaseUrl && config.databaseSchema) await dropPostgresSchema(config.databaseUrl, config.databaseSchema);
      fs.rmSync(config.dataDir, { recursive: true, force: true });
    },
  };
}
