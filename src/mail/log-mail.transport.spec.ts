import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { LogMailTransport, outboxFileName } from './log-mail.transport';

describe('log mail transport', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sa-mail-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('names files <time>-<to>.eml with unsafe characters replaced', () => {
    expect(outboxFileName('a/b@x.com', new Date('2030-01-02T03:04:05.678Z'))).toBe('2030-01-02T03-04-05-678Z-a_b@x.com.eml');
  });

  it('writes an RFC 5322 message (plain + HTML) to DATA_DIR/outbox readable by the owner only', async () => {
    const outbox = path.join(dir, 'outbox');
    const transport = new LogMailTransport(outbox, 'Desk <desk@example.com>');
    await transport.send({ to: 'ada@example.com', subject: 'Hello', text: 'Plain body', html: '<p>HTML body</p>' });
    await transport.close();
    const [file] = fs.readdirSync(outbox);
    expect(file).toMatch(/-ada@example\.com\.eml$/);
    expect(fs.statSync(path.join(outbox, file)).mode & 0o777).toBe(0o600);
    const eml = fs.readFileSync(path.join(outbox, file), 'utf8');
    expect(eml).toMatch(/^From: Desk <desk@example\.com>$/m);
    expect(eml).toMatch(/^To: ada@example\.com$/m);
    expect(eml).toMatch(/^Subject: Hello$/m);
    expect(eml).toMatch(/multipart\/alternative/);
    expect(eml).toContain('Plain body');
    expect(eml).toContain('<p>HTML body</p>');
  });
});
