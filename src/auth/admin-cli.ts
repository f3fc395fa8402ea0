/**
 * Manages admins from the command line (works while the server runs):
 *
 *   npm run admin -- list
 *   npm run admin -- add <email> [--name "Full Name"] [--role owner|admin|agent|viewer] [--password] [--no-code]
 *   npm run admin -- set-password <email>
 *   npm run admin -- set-role <email> <role>
 *   npm run admin -- disable <email>   |   enable <email>
 *   npm run admin -- remove <email>
 *
 * It reads the same environment as the server (DATA_DIR or DATABASE_URL, ...). Passwords are
 * asked for without echo on a terminal, or read from the first line of standard input
 * (`printf '%s\n' "$PW" | npm run admin -- set-password a@b.c`); never from the command line,
 * where other users and shell history could see them. 12 to 128 characters.
 * It goes through AdminUsersService, as the console's Team tab does, so the same rules hold: the
 * last enabled owner cannot be removed, disabled or given another role. Disabling or removing a
 * member ends their sessions at once; with REDIS_URL the servers are told at once and drop the
 * member's /admin sockets, otherwise each server drops them within ADMIN_SOCKET_CHECK_MS.
 */
import 'reflect-metadata';
import * as readline from 'node:readline';
import { parseArgs } from 'node:util';
import type { DataSource } from 'typeorm';
import { AppError } from '../common/app-error';
import { ConfigError, loadConfig, passwordProblem } from '../config/app-config';
import { openDataSource } from '../database/data-source';
import { ROLES, UNKNOWN_ROLE, type Role } from '../shared/contracts/roles';
import { AdminUser } from './admin-user.entity';
import { AdminUsersService } from './admin-users.service';
import { SessionEvents } from './session-events';

const USAGE = `Usage: npm run admin -- <command>

  list                                          list the members (role, status, sign-in methods)
  add <email> [--name "Full Name"] [--role ROLE] [--password] [--no-code]
                                                add a member (default role: owner); --password asks
                                                for a password (password sign-in), --no-code turns
                                                code sign-in off
  set-password <email>                          set a password (turns password sign-in on)
  set-role <email> <role>                       change a member's role
  disable <email>                               disable a member and end their sessions
  enable <email>                                enable a disabled member
  remove <email>                                remove a member and end their sessions

Roles: owner, admin, agent, viewer. The last enabled owner cannot be removed, disabled or demoted.

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
  flags: { name?: string; role?: Role; password: boolean; noCode: boolean };
}

function parse(argv: string[]): Parsed {
  const [command = 'help', ...rest] = argv;
  let parsed: ReturnType<typeof parseOptions>;
  try {
    parsed = parseOptions(rest);
  } catch (error) {
    // node:util's messages name the option ("Unknown option '--x'", "Option '--name <value>' argument missing").
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const { values, positionals } = parsed;
  return {
    command,
    args: positionals,
    flags: {
      name: values.name,
      role: values.role === undefined ? undefined : roleOrThrow(values.role),
      password: values.password ?? false,
      noCode: values['no-code'] ?? false,
    },
  };
}

function parseOptions(args: string[]) {
  return parseArgs({
    args,
    strict: true,
    allowPositionals: true,
    options: { name: { type: 'string' }, role: { type: 'string' }, password: { type: 'boolean' }, 'no-code': { type: 'boolean' } },
  });
}

function roleOrThrow(value: string): Role {
  if (!(ROLES as readonly string[]).includes(value)) throw new UsageError(UNKNOWN_ROLE);
  return value as Role;
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

export async function runAdminCli(argv: string[], dataSource: DataSource, io: Io, events?: SessionEvents): Promise<number> {
  const { command, args, flags } = parse(argv);
  const users = new AdminUsersService(dataSource, dataSource.getRepository(AdminUser), events);
  switch (command) {
    case 'list': {
      const all = await users.list();
      if (all.length === 0) io.out('No admins.');
      for (const user of all) {
        const status = user.disabledAt === null ? 'active' : 'disabled';
        io.out(`${user.email}\t${user.name || '-'}\t${user.role}\t${status}\t${methodsOf(user)}\tadded ${new Date(user.createdAt).toISOString()}`);
      }
      return 0;
    }
    case 'add': {
      const email = oneEmail(args, 'add');
      if (flags.noCode && !flags.password) throw new UsageError('--no-code needs --password (an admin needs a way to sign in)');
      const password = flags.password ? await askPassword(io) : undefined;
      const user = await users.create({ email, name: flags.name, password, otpLogin: !flags.noCode, role: flags.role ?? 'owner' });
      io.out(`Added ${user.email} as ${user.role} (sign-in: ${methodsOf(user)}).`);
      return 0;
    }
    case 'set-password': {
      const email = oneEmail(args, 'set-password');
      if (!(await users.findByEmail(email))) throw new AppError('not_found', `No admin has the email ${email.trim().toLowerCase()}.`);
      const user = await users.setPassword(email, await askPassword(io));
      io.out(`Password set for ${user.email} (sign-in: ${methodsOf(user)}).`);
      return 0;
    }
    case 'set-role': {
      if (args.length !== 2) throw new UsageError('set-role needs an email and a role');
      const role = roleOrThrow(args[1]);
      const { after } = await users.change(await users.idOf(args[0]), { role });
      io.out(`${after.email} is now ${after.role}.`);
      return 0;
    }
    case 'disable':
    case 'enable': {
      const { after } = await users.change(await users.idOf(oneEmail(args, command)), { disabled: command === 'disable' });
      io.out(command === 'disable' ? `Disabled ${after.email}; their sessions have ended.` : `Enabled ${after.email}.`);
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
  let events: SessionEvents | undefined;
  try {
    const config = loadConfig();
    dataSource = await openDataSource(config);
    // Tells the running servers (through Redis) to drop the sockets of a member disabled or removed here.
    events = new SessionEvents(config);
    await events.startPublisher().catch(() => undefined);
    process.exitCode = await runAdminCli(argv, dataSource, io, events);
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
    await events?.close().catch(() => undefined);
    if (dataSource?.isInitialized) await dataSource.destroy();
  }
}

if (require.main === module) void main();
