/**
 * `pedelec-dev`'s arguments → a command. Node's `util.parseArgs` splits them (its messages for an
 * unknown flag or a missing value are the CLI's); each value is checked by its flag's kind in the
 * table (flags.ts). Every mistake is a `DevCoreError` `INVALID_OPTION` with the usage line under its
 * message, fit to print as is, so the CLI fails at start instead of misbehaving later.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { DevCoreError } from '../errors.js';
import { DEFAULT_PORT, type DevCoreOptions } from '../server.js';
import { CLI_FLAGS, STDIO_FLAGS, fail, type CliFlag, type Target } from './flags.js';
import { USAGE, neededText } from './help.js';

export type CliCommand =
  | { kind: 'help' }
  | { kind: 'version' }
  | { kind: 'start'; options: DevCoreOptions }
  | { kind: 'stdio'; port: number; tokenFile?: string };

export function parseCli(argv: readonly string[]): CliCommand {
  try {
    return parseCommand(argv);
  } catch (error) {
    // Every mistake is told with the usage line under it.
    if (error instanceof DevCoreError && error.code === 'INVALID_OPTION') {
      throw new DevCoreError('INVALID_OPTION', `${error.message}\n${USAGE}`);
    }
    throw error;
  }
}

function parseCommand(argv: readonly string[]): CliCommand {
  if (argv[0] === 'mcp') return parseStdio(argv.slice(1));
  const values = tokenize(expandLists(argv), CLI_FLAGS);
  return commandIn(values, CLI_FLAGS) ?? { kind: 'start', options: optionsOf(values, CLI_FLAGS, true) };
}

/** `pedelec-dev mcp [--port N] [--mcp-token-file F]`. */
function parseStdio(argv: readonly string[]): CliCommand {
  const values = tokenize(argv, STDIO_FLAGS);
  const command = commandIn(values, STDIO_FLAGS);
  if (command) return command;
  const { port = DEFAULT_PORT, mcpTokenFile } = optionsOf(values, STDIO_FLAGS, false);
  if (port === 0) fail('pedelec-dev mcp --port: the port of the running pedelec-dev --mcp, not 0');
  return typeof mcpTokenFile === 'string' ? { kind: 'stdio', port, tokenFile: mcpTokenFile } : { kind: 'stdio', port };
}

type Values = Record<string, string | boolean | (string | boolean)[] | undefined>;

/** The flags given, split by `util.parseArgs` as the table declares them. */
function tokenize(argv: readonly string[], flags: readonly CliFlag[]): Values {
  const options: NonNullable<ParseArgsConfig['options']> = {};
  for (const flag of flags) {
    options[flag.name] = {
      type: flag.kind === 'boolean' ? 'boolean' : 'string',
      multiple: flag.kind === 'list',
      // parseArgs refuses a `short` that is present but undefined.
      ...(flag.short === undefined ? {} : { short: flag.short }),
    };
  }
  try {
    return parseArgs({ args: [...argv], strict: true, allowPositionals: false, options }).values;
  } catch (error) {
    fail((error as Error).message);
  }
}

/** `--help` or `--version` if given (the first in the table wins), before any value is checked. */
function commandIn(values: Values, flags: readonly CliFlag[]): CliCommand | null {
  for (const flag of flags) if (flag.command && values[flag.name]) return { kind: flag.command };
  return null;
}

/** The options the given flags set, checked in table order: the first mistake is the one reported. */
function optionsOf(values: Values, flags: readonly CliFlag[], checkNeeds: boolean): DevCoreOptions {
  const options: DevCoreOptions = {};
  for (const flag of flags) {
    const raw = values[flag.name];
    if (raw === undefined || flag.command) continue;
    if (checkNeeds && flag.needs && !hasNeeded(flag.needs, values))
      fail(`--${flag.name} needs ${neededText(flag.needs)}${flag.needs.why ? `: ${flag.needs.why}` : ''}`);
    applyFlag(flag, raw, options);
  }
  return options;
}

function hasNeeded(needs: NonNullable<CliFlag['needs']>, values: Values): boolean {
  const given = values[needs.flag] ?? CLI_FLAGS.find((flag) => flag.name === needs.flag)?.default;
  return needs.value === undefined ? given !== undefined : given === needs.value;
}

/** Checks a given flag's value by its kind, and writes it into `options`. */
function applyFlag(flag: CliFlag, raw: NonNullable<Values[string]>, options: DevCoreOptions): void {
  // parseArgs gives each flag the type `tokenize` declared for its kind.
  switch (flag.kind) {
    case 'boolean':
      if (!flag.command) write(flag, options, true);
      return;
    case 'string':
      return write(flag, options, raw as string);
    case 'integer':
      return write(flag, options, integerOf(flag, raw as string));
    case 'list':
      return write(flag, options, listOf(raw as string[]));
    case 'choice':
      return write(flag, options, choiceOf(flag, raw as string));
  }
}

function write<T>(target: Target<T, keyof DevCoreOptions>, options: DevCoreOptions, value: T): void {
  if (target.set) target.set(options, value);
  else (options as Record<string, unknown>)[target.field] = value;
}

/** A whole number within the flag's bounds, or a clear error naming the flag. */
function integerOf(flag: Extract<CliFlag, { kind: 'integer' }>, text: string): number {
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < flag.min || value > flag.max)
    fail(`--${flag.name} ${text}: expected ${flag.expected ?? `a whole number from ${flag.min} to ${flag.max}`}`);
  return value;
}

/** Every value given, the comma-separated ones apart, blanks dropped. */
function listOf(given: readonly string[]): string[] {
  return given
    .flatMap((item) => item.split(','))
    .map((item) => item.trim())
    .filter(Boolean);
}

function choiceOf(flag: Extract<CliFlag, { kind: 'choice' }>, text: string): string {
  if (!flag.values.includes(text)) fail(`--${flag.name} ${text}: expected ${flag.expected ?? eitherOf(flag.values)}`);
  return text;
}

/** `a, b or c`. */
function eitherOf(values: readonly string[]): string {
  return values.length < 2 ? values.join('') : `${values.slice(0, -1).join(', ')} or ${values.at(-1)}`;
}

/** The documented `--allow-origin A B` form → `--allow-origin A --allow-origin B`, for each list flag. */
function expandLists(argv: readonly string[]): string[] {
  const lists = new Set(CLI_FLAGS.filter((flag) => flag.kind === 'list').map((flag) => `--${flag.name}`));
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    out.push(arg);
    if (!lists.has(arg)) continue;
    for (let n = 0; i + 1 < argv.length && !argv[i + 1].startsWith('-'); n++) {
      if (n > 0) out.push(arg);
      out.push(argv[++i]);
    }
  }
  return out;
}
