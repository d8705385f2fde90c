// The command line's flags as parseCli reads them, without starting a process (the started command
// is tested in process/cli.test.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { CLI_FLAGS, type CliFlag } from '../src/cli/flags.js';
import { HELP, USAGE } from '../src/cli/help.js';
import { DEFAULT_PORT, DevCoreError, parseCli } from '../src/index.js';

test('flags parse into options; --allow-origin takes several URLs, repeated or comma-separated', async () => {
  const command = parseCli([
    '--port',
    '8000',
    '--allow-origin',
    'http://a.test:1',
    'https://b.test:*',
    '--allow-origin',
    'http://c.test,http://d.test:2',
    '--approval',
    'prompt',
    '--strict-providers',
    '--agent',
    'operator',
  ]);
  assert.ok(command.kind === 'start');
  assert.deepEqual(command.options, {
    port: 8000,
    allowOrigins: ['http://a.test:1', 'https://b.test:*', 'http://c.test', 'http://d.test:2'],
    approval: 'prompt',
    strictProviders: true,
    agent: 'operator',
  });
  assert.deepEqual(parseCli([]), { kind: 'start', options: {} });
  assert.deepEqual(parseCli(['--protocol', '0.1']), { kind: 'start', options: { protocol: '0.1' } });
  assert.deepEqual(parseCli(['--protocol', 'current', '--no-fragments']), {
    kind: 'start',
    options: { protocol: 'current', fragments: false },
  });
  assert.deepEqual(parseCli(['--no-fragments']), { kind: 'start', options: { fragments: false } });
  assert.deepEqual(parseCli(['--core-statuses']), { kind: 'start', options: { coreStatuses: true } });
  assert.deepEqual(parseCli(['--max-sessions', '50', '--session-idle-ms', '60000', '--asset-quota-mb', '2']), {
    kind: 'start',
    options: { maxSessions: 50, sessionIdleMs: 60_000, assetQuotaBytes: 2 * 1024 * 1024 },
  });
  assert.throws(
    () => parseCli(['--protocol', 'latest']),
    (error) =>
      error instanceof DevCoreError && error.code === 'INVALID_OPTION' && /--protocol latest/.test(error.message),
  );
  assert.throws(() => parseCli(['--allow-origin']), /argument missing/);
  assert.throws(() => parseCli(['stray']), /Unexpected argument/);
});

// The table is the CLI's one description: what follows fails if the parser or --help drifts from it.

/** The flags a flag's `needs` asks for, so that it can be tried on its own. */
function prerequisites(flag: CliFlag): string[] {
  if (!flag.needs) return [];
  return flag.needs.value === undefined ? [`--${flag.needs.flag}`] : [`--${flag.needs.flag}`, flag.needs.value];
}

/** The error `parseCli(args)` throws, or null. */
function errorOf(args: string[]): DevCoreError | null {
  try {
    parseCli(args);
    return null;
  } catch (error) {
    assert.ok(error instanceof DevCoreError, `${args.join(' ')}: ${String(error)}`);
    return error;
  }
}

/** The first line of a mistake's message (the usage line follows it). */
function mistake(args: string[]): string {
  const error = errorOf(args);
  assert.ok(error, `${args.join(' ')} was accepted`);
  assert.equal(error.code, 'INVALID_OPTION', args.join(' '));
  assert.ok(error.message.endsWith(`\n${USAGE}`), 'the usage follows the message');
  return error.message.slice(0, -USAGE.length - 1);
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const squeezed = (text: string) => text.replace(/\s+/g, ' ');

test('--help lists every flag of the table, with its text, default and prerequisite, and nothing else', () => {
  const listed = [...HELP.matchAll(/^ {2}(?:-\w, )?--([a-z-]+)/gm)].map((match) => match[1]);
  assert.deepEqual(
    listed,
    CLI_FLAGS.map((flag) => flag.name),
  );
  const help = squeezed(HELP);
  for (const flag of CLI_FLAGS) {
    const short = flag.short === undefined ? '' : `-${flag.short}, `;
    const arg = flag.kind === 'boolean' ? '' : ` ${escape(flag.arg)}`;
    assert.match(HELP, new RegExp(`^ {2}${short}--${flag.name}${arg}\\S* +\\S`, 'm'), flag.name);
    assert.ok(help.includes(squeezed(flag.help)), `--${flag.name}'s help`);
    if (flag.default !== undefined) assert.ok(help.includes(`default ${flag.default}`), `--${flag.name}'s default`);
    if (flag.needs) assert.ok(help.includes(`needs --${flag.needs.flag}`), `--${flag.name}'s prerequisite`);
    // The usage line names every flag but the commands, and `pedelec-dev mcp`'s those it takes.
    const [main, stdio] = USAGE.split('\n');
    const used = new RegExp(`\\[--${flag.name}[ \\]]`);
    assert.equal(used.test(main), !flag.command, `usage of --${flag.name}`);
    assert.equal(used.test(stdio), !!flag.stdio && !flag.command, `mcp usage of --${flag.name}`);
    if (flag.kind === 'choice') assert.ok(main.includes(`[--${flag.name} ${flag.values.join('|')}]`), flag.name);
  }
  for (const line of HELP.split('\n').slice(2)) assert.ok(line.length <= 100, `too wide: ${line}`);
});

test('every flag of the table is accepted, its value tokenized as its kind says; others are unknown', () => {
  const sample = (flag: CliFlag): string[] =>
    flag.kind === 'boolean'
      ? []
      : flag.kind === 'integer'
        ? [String(flag.max)]
        : flag.kind === 'choice'
          ? [flag.values.at(-1)!]
          : flag.kind === 'list'
            ? ['http://a.test', 'http://b.test:*,http://c.test']
            : ['.'];
  for (const flag of CLI_FLAGS) {
    const args = [...prerequisites(flag), `--${flag.name}`, ...sample(flag)];
    if (flag.command) {
      assert.deepEqual(parseCli(args), { kind: flag.command });
      if (flag.short) assert.deepEqual(parseCli([`-${flag.short}`]), { kind: flag.command });
      continue;
    }
    // A string flag's own check (a file to read, say) may refuse '.': never the tokenizer.
    const error = errorOf(args);
    if (flag.kind !== 'string') assert.equal(error, null, `${args.join(' ')}: ${error?.message}`);
    else assert.doesNotMatch(error?.message ?? '', /Unknown option|argument|Unexpected/, args.join(' '));
    if (flag.stdio) assert.equal(errorOf(['mcp', `--${flag.name}`, ...sample(flag)]), null, `mcp --${flag.name}`);
    else assert.match(mistake(['mcp', `--${flag.name}`, ...sample(flag)]), /^Unknown option/, `mcp --${flag.name}`);
  }
  assert.match(mistake(['--frobnicate']), /^Unknown option '--frobnicate'/);
  const list = CLI_FLAGS.find((flag) => flag.name === 'allow-origin')!;
  assert.deepEqual(parseCli([`--${list.name}`, ...sample(list)]), {
    kind: 'start',
    options: { allowOrigins: ['http://a.test', 'http://b.test:*', 'http://c.test'] },
  });
});

test("each value kind refuses what it cannot take, in the words of the flag's table entry", () => {
  for (const flag of CLI_FLAGS) {
    const before = prerequisites(flag);
    const named = `${flag.short === undefined ? '' : `-${flag.short}, `}--${flag.name}`;
    if (flag.kind === 'boolean') {
      assert.equal(mistake([...before, `--${flag.name}=yes`]), `Option '${named}' does not take an argument`);
      continue;
    }
    assert.equal(mistake([...before, `--${flag.name}`]), `Option '--${flag.name} <value>' argument missing`);
    if (flag.kind === 'integer') {
      for (const bad of [String(flag.min - 1), String(flag.max + 1), 'many', '1.5', '2e3']) {
        const message = mistake([...before, `--${flag.name}=${bad}`]);
        assert.ok(message.startsWith(`--${flag.name} ${bad}: expected `), message);
        assert.ok(message.endsWith(`from ${flag.min} to ${flag.max}`), message);
      }
      for (const good of [flag.min, flag.max]) {
        const command = parseCli([...before, `--${flag.name}`, String(good)]);
        assert.ok(command.kind === 'start', flag.name);
        if (flag.field) assert.equal(command.options[flag.field], good, flag.name);
      }
    }
    if (flag.kind === 'choice') {
      const message = mistake([...before, `--${flag.name}`, 'nope']);
      assert.ok(message.startsWith(`--${flag.name} nope: expected `), message);
      for (const value of flag.values) {
        assert.ok(message.includes(value), `${message} names ${value}`);
        const command = parseCli([...before, `--${flag.name}`, value]);
        assert.ok(command.kind === 'start' && command.options[flag.field!] === value, `--${flag.name} ${value}`);
      }
    }
  }
});

test('a flag that needs another is refused without it, and the one it needs comes first in the table', () => {
  const needing = CLI_FLAGS.filter((flag) => flag.needs);
  assert.ok(needing.length > 0);
  for (const flag of needing) {
    const { flag: name, value, why } = flag.needs!;
    const needed = CLI_FLAGS.findIndex((other) => other.name === name);
    assert.ok(needed >= 0 && needed < CLI_FLAGS.indexOf(flag), `--${name} comes before --${flag.name}`);
    const other = CLI_FLAGS[needed];
    // Without the flag, or with it set otherwise than needed.
    const without =
      value === undefined ? [] : [`--${name}`, other.kind === 'choice' ? other.values.find((v) => v !== value)! : ''];
    const own =
      flag.kind === 'boolean'
        ? []
        : [flag.kind === 'choice' ? flag.values[0] : flag.kind === 'integer' ? String(flag.min) : 'x'];
    const expected = `--${flag.name} needs --${name}${value === undefined ? '' : ` ${value}`}${why ? `: ${why}` : ''}`;
    // Either order on the command line: the table's order decides what is checked first.
    assert.equal(mistake([...without, `--${flag.name}`, ...own]), expected);
    assert.equal(mistake([`--${flag.name}`, ...own, ...without]), expected);
    assert.equal(errorOf([...prerequisites(flag), `--${flag.name}`, ...own]), null, `--${flag.name} with --${name}`);
  }
});

test('pedelec-dev mcp: the port of the running server (not 0) and its token file, nothing else', () => {
  assert.deepEqual(parseCli(['mcp']), { kind: 'stdio', port: DEFAULT_PORT });
  assert.deepEqual(parseCli(['mcp', '--port', '8000', '--mcp-token-file', 'token']), {
    kind: 'stdio',
    port: 8000,
    tokenFile: resolve('token'),
  });
  assert.deepEqual(parseCli(['mcp', '-h']), { kind: 'help' });
  assert.match(
    mistake(['mcp', '--port', '0']),
    /^pedelec-dev mcp --port: the port of the running pedelec-dev --mcp, not 0$/,
  );
  assert.match(mistake(['mcp', '--port', 'x']), /^--port x: expected a number from 0 to 65535$/);
  assert.match(mistake(['mcp', '-v']), /^Unknown option '-v'/);
});
