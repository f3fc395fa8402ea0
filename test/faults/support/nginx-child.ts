/**
 * The cluster's nginx start alone (deploy/nginx-process.ts, as deploy/cluster.ts runs it), for
 * test/faults/nginx-leftover: `node -r ts-node/register/transpile-only nginx-child.ts DIR PORT`.
 * Stops a leftover of DIR, starts nginx on 127.0.0.1:PORT with a site answering "ok", prints
 * `ready {"pid":…,"leftover":[…]}` and stays until killed.
 */
import * as fs from 'node:fs';
import { checkNginxConfig, nginxSitePath, startNginx, stopLeftoverNginx, writeNginxConfig } from '../../../deploy/nginx-process';

async function main(): Promise<void> {
  const [dir, port, nginxBin = '/usr/sbin/nginx'] = process.argv.slice(2);
  const leftover = await stopLeftoverNginx(dir);
  writeNginxConfig(dir);
  fs.writeFileSync(nginxSitePath(dir), `server {\n    listen 127.0.0.1:${port};\n    location / { return 200 "ok\\n"; }\n}\n`);
  checkNginxConfig(nginxBin, dir);
  const child = await startNginx(nginxBin, dir, { host: '127.0.0.1', port: Number(port) });
  process.stdout.write(`ready ${JSON.stringify({ pid: child.pid, leftover })}\n`);
  setInterval(() => undefined, 60_000);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
