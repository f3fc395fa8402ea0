/**
 * Manages admins from the command line (works while the server runs):
 *
 *   npm run admin -- list
 *   npm run admin -- add <email> [--name "Full Name"] [--password] [--no-code]
 *   npm run admin -- set-password <email>
 *   npm run admin -- remove <email>
 *
 * It reads the same environment as the server (DATA_DIR or DATABASE_URL, ...). Passwords are
 * asked for without echo on a terminal, or read from the first line of standard input
 * (`printf '%s\n' "$PW" | npm run admin -- set-password a@b.c`); never from the command line,
 * where other users and shell history could see them. 12 to 128 characters.
 * Removing an admin ends their sessions at once (their sockets are dropped within
 * ADMIN_SOCKET_CHECK_MS).
 */
import 'reflect-metadata';
import * as readline from 'node:readline';
import type { DataSource } from 'typeorm';
import { AppError } from '../common/app-error';
import { ConfigError, loadConfig, passwordProblem } from '../config/app-config';
import { openDataSource } from '../database/data-source';
import { AdminUser } from './admin-user.entity';
import { AdminUsersService } from './admin-users.service';

const USAGE = `Usage: npm run admin -- <command>

  list                                          list the admins
  add <email> [--name "Full Name"] [--password] [--no-code]
                                                add an admin; --password asks for a password
                                                (password sign-in), --no-code turns code sign-in off
  set-password <email>                          set a password (turns password sign-in on)
  remove <email>                                remove an admin and end their sessions

Passwords are read without echo from the terminal, or from the first line of standard input.`;

class UsageError extends Error {}

interface Io {
  out: (line: string) => void;
  err: (line: string) => void;
  readPassword: (prompt: string) => Promise<string>;
}

interface Parsed {
  command: string;
  args: string[];
  flags: { name?: string; password: boolean; noCode: boolean };
}

function parse(argv: string[]): Parsed {
  const [command = 'help', ...rest] = argv;
  const args: string[] = [];
  const flags: Parsed['flags'] = { password: false, noCode: false };
  for (let i = 0; i < rest.length; i += 1) {
    const arg = rest[i];
    if (arg === '--name') {
      if (rest[i + 1] === undefined) throw new UsageError('--name needs a value');
      flags.name = rest[++i];
    } else if (arg.startsWith('--name=')) flags.name = arg.slice('--name='.length);
    else if (arg === '--password') flags.password = true;
    else if (arg === '--no-code') flags.noCode = true;
    else if (arg.startsWith('--')) throw new UsageError(`Unknown option ${arg}`);
    else args.push(arg);
  }
  return { command, args, flags };
}

function oneEmail(args: string[], command: string): string {
  if (args.length !== 1) throw new UsageError(`${command} needs exactly one email`);
  return args[0];
}

async function askPassword(io: Io): Promise<string> {
  const password = await io.readPassword('New password (12-128 characters): ');
  const problem = passwordProblem(password);
  if (problem) throw new AppError('validation_failed', `The password ${problem}.`);
  if (process.stdin.isTTY) {
    const again = await io.readPassword('Repeat the password: ');
    if (again !== password) throw new AppError('validation_failed', 'The passwords do not match.');
  }
  return password;
}

function methodsOf(user: { passwordLogin: boolean; otpLogin: boolean }): string {
  return [user.passwordLogin ? 'password' : '', user.otpLogin ? 'code' : ''].filter(Boolean).join(' + ') || 'none';
}

export async function runAdminCli(argv: string[], dataSource: DataSource, io: Io): Promise<number> {
  const { command, args, flags } = parse(argv);
  const users = new AdminUsersService(dataSource, dataSource.getRepository(AdminUser));
  switch (command) {
    case 'list': {
      const all = await users.list();
      if (all.length === 0) io.out('No admins.');
      for (const user of all) {
        io.out(`${user.email}\t${user.name || '-'}\t${methodsOf(user)}\tadded ${new Date(user.createdAt).toISOString()}`);
      }
      return 0;
    }
    case 'add': {
      const email = oneEmail(args, 'add');
      if (flags.noCode && !flags.password) throw new UsageError('--no-code needs --password (an admin needs a way to sign in)');
      const password = flags.password ? await askPassword(io) : undefined;
      const user = await users.create({ email, name: flags.name, password, otpLogin: !flags.noCode });
      io.out(`Added ${user.email} (sign-in: ${methodsOf(user)}).`);
      return 0;
    }
    case 'set-password': {
      const email = oneEmail(args, 'set-password');
      if (!(await users.findByEmail(email))) throw new AppError('not_found', `No admin has the email ${email.trim().toLowerCase()}.`);
      const user = await users.setPassword(email, await askPassword(io));
      io.out(`Password set for ${user.email} (sign-in: ${methodsOf(user)}).`);
      return 0;
    }
    case 'remove': {
      const user = await users.remove(oneEmail(args, 'remove'));
      io.out(`Removed ${user.email}; their sessions have ended.`);
      if ((await users.count()) === 0) io.out('No admins are left: the next server start creates admin@localhost (code sign-in).');
      return 0;
    }
    case 'help':
    case '--help':
    case '-h':
      io.out(USAGE);
      return 0;
    default:
      throw new UsageError(`Unknown command "${command}"`);
  }
}

/** First line of a piped stdin, or a no-echo prompt on a terminal. */
function terminalIo(): Io {
  let piped: Promise<string[]> | undefined;
  const readPiped = () =>
    (piped ??= new Promise<string[]>((resolve, reject) => {
      let text = '';
      process.stdin.setEncoding('utf8');
      process.stdin.on('data', (chunk) => (text += chunk));
      process.stdin.on('end', () => resolve(text.split(/\r?\n/)));
      process.stdin.on('error', reject);
    }));
  return {
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
    readPassword: async (prompt) => {
      if (!process.stdin.isTTY) return (await readPiped()).shift() ?? '';
      return new Promise((resolve) => {
        const rl = readline.createInterface({ input: process.stdin, output: process.stdout, terminal: true });
        let muted = false;
        (rl as unknown as { _writeToOutput: (s: string) => void })._writeToOutput = (s: string) => {
          if (!muted) process.stdout.write(s);
        };
        rl.question(prompt, (answer) => {
          rl.close();
          process.stdout.write('\n');
          resolve(answer);
        });
        muted = true;
      });
    },
  };
}

async function main(): Promise<void> {
  const io = terminalIo();
  const argv = process.argv.slice(2);
  const { command } = (() => {
    try {
      return parse(argv);
    } catch {
      return { command: 'invalid' };
    }
  })();
  if (['help', '--help', '-h'].includes(command)) {
    io.out(USAGE);
    return;
  }
  let dataSource: DataSource | undefined;
  try {
    dataSource = await openDataSource(loadConfig());
    process.exitCode = await runAdminCli(argv, dataSource, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`${error.message}\n\n${USAGE}`);
      process.exitCode = 2;
    } else if (error instanceof AppError || error instanceof ConfigError) {
      io.err(error.message);
      process.exitCode = 1;
    } else {
      io.err(`Failed: ${(error as Error).message}`);
      process.exitCode = 1;
    }
  } finally {
    if (dataSource?.isInitialized) await dataSource.destroy();
  }
}

if (require.main === module) void main();
