/**
 * The usage recorder's journal: usage events that could not be written to the database (an
 * outage) are appended here, one JSON line each, before the visitor gets the end of the reply, so
 * a server killed before the database came back loses none of them.
 *
 * Each process appends to a file of its own, `<host>-<pid>-<start>.ndjson`, and empties it once
 * its events are stored. At start a server replays the files whose owner is gone: on this host a
 * process that no longer runs (or an earlier life of this very pid), on another host (a shared
 * volume) a file untouched for ORPHAN_AFTER_MS. A file is claimed by renaming it first, so two
 * servers never replay the same file; replayed events already stored are skipped by the insert.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { UsageEvent } from './usage-event.entity';

const ORPHAN_AFTER_MS = 10 * 60_000;
const REPLAY_BATCH = 500;

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export class UsageJournal {
  private readonly host = os.hostname().replace(/[^A-Za-z0-9_.]/g, '_');
  private readonly started = Date.now();
  readonly file: string;
  /** Journal operations of this process, one after another. */
  private chain: Promise<unknown> = Promise.resolve();

  constructor(private readonly dir: string) {
    this.file = path.join(dir, `${this.host}-${process.pid}-${this.started}.ndjson`);
  }

  append(events: UsageEvent[]): Promise<void> {
    return this.serial(async () => {
      await fs.promises.mkdir(this.dir, { recursive: true });
      await fs.promises.appendFile(this.file, events.map((e) => `${JSON.stringify(e)}\n`).join(''));
    });
  }

  /** Empties this process's journal if `stillSafe()` holds when its turn comes (nothing held that is not stored). */
  clear(stillSafe: () => boolean): Promise<void> {
    return this.serial(async () => {
      if (!stillSafe()) return;
      await fs.promises.rm(this.file, { force: true });
    });
  }

  /** Stores every event of this process's own journal again (after memory had to drop some), then empties it. */
  replayOwn(insert: (events: UsageEvent[]) => Promise<void>): Promise<number> {
    return this.serial(async () => {
      const count = await this.replayFile(this.file, insert);
      await fs.promises.rm(this.file, { force: true });
      return count;
    });
  }

  /** Replays the journals of servers that are gone; returns how many events they held. */
  async replayOrphans(insert: (events: UsageEvent[]) => Promise<void>): Promise<number> {
    let names: string[];
    try {
      names = await fs.promises.readdir(this.dir);
    } catch {
      return 0;
    }
    let total = 0;
    for (const name of names) {
      const file = path.join(this.dir, name);
      if (!(await this.isOrphan(name, file))) continue;
      const claimed = `${file}.replaying-${process.pid}-${this.started}`;
      try {
        await fs.promises.rename(file, claimed);
      } catch {
        continue; // another server claimed it first
      }
      total += await this.replayFile(claimed, insert);
      await fs.promises.rm(claimed, { force: true });
    }
    return total;
  }

  private async isOrphan(name: string, file: string): Promise<boolean> {
    const claimed = /\.ndjson\.replaying-(\d+)-(\d+)$/.exec(name);
    const own = /^(.+)-(\d+)-(\d+)\.ndjson$/.exec(name);
    if (claimed) {
      // A replay that died half-way: take it over when its replayer is gone.
      return Number(claimed[1]) !== process.pid && !isRunning(Number(claimed[1]));
    }
    if (!own) return false;
    const [, host, pid, started] = own;
    if (host === this.host) {
      if (Number(pid) === process.pid) return Number(started) !== this.started;
      return !isRunning(Number(pid));
    }
    const stat = await fs.promises.stat(file).catch(() => undefined);
    return stat !== undefined && Date.now() - stat.mtimeMs > ORPHAN_AFTER_MS;
  }

  private async replayFile(file: string, insert: (events: UsageEvent[]) => Promise<void>): Promise<number> {
    let text: string;
    try {
      text = await fs.promises.readFile(file, 'utf8');
    } catch {
      return 0;
    }
    const events: UsageEvent[] = [];
    for (const line of text.split('\n')) {
      if (line.trim() === '') continue;
      try {
        events.push(JSON.parse(line) as UsageEvent);
      } catch {
        // A line cut short by the crash: the event was not acknowledged to anyone.
      }
    }
    for (let i = 0; i < events.length; i += REPLAY_BATCH) await insert(events.slice(i, i + REPLAY_BATCH));
    return events.length;
  }

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const run = this.chain.then(work);
    this.chain = run.catch(() => undefined);
    return run;
  }
}
