import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadConfig } from '../config/app-config';
import { openDataSource } from './data-source';
import { Setting } from './setting.entity';
import { queuedWrite, writeTransaction } from './write-queue';

describe('SQLite write queue', () => {
  it('keeps a failed transaction from taking a concurrent write down with it', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sa-wq-'));
    const ds = await openDataSource(loadConfig({}, { dataDir: dir }));
    try {
      let release!: () => void;
      let opened!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      const open = new Promise<void>((r) => (opened = r));
      const failing = writeTransaction(ds, async (m) => {
        await m.insert(Setting, { key: 'doomed', value: '1', updatedAt: 1 });
        opened();
        await gate;
        throw new Error('rolled back');
      });
      await open;
      // Issued while the first transaction is open: without the queue it would join it and vanish.
      const independent = queuedWrite(ds, () => ds.getRepository(Setting).insert({ key: 'kept', value: '2', updatedAt: 2 }));
      await new Promise((r) => setTimeout(r, 20));
      release();
      await expect(failing).rejects.toThrow('rolled back');
      await independent;
      const keys = (await ds.getRepository(Setting).find()).map((s) => s.key);
      expect(keys).toEqual(['kept']);
    } finally {
      await ds.destroy();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
