/**
 * The usage line and `--help`, made from the flags' table (flags.ts).
 */
import { DEFAULT_PORT } from '../server.js';
import { CLI_FLAGS, STDIO_FLAGS, type CliFlag } from './flags.js';

const HELP_WIDTH = 100;

export const USAGE =
  `Usage: pedelec-dev ${usageOf(CLI_FLAGS)}\n` +
  // Lined up under the first command's name.
  `       pedelec-dev mcp ${usageOf(STDIO_FLAGS)}`;

export const HELP = `${USAGE}

The development Core for pedelec-elements: speaks the Pedelec bridge protocol over WebSocket at
/bridge, so <pedelec-session bridge="ws://127.0.0.1:7717/bridge"> works without the extension. It
speaks today's protocol (as the current extension and Desktop do) unless --protocol 0.1 is given.

${helpLines(CLI_FLAGS).join('\n')}

pedelec-dev mcp ${usageOf(STDIO_FLAGS)} speaks MCP over stdio, for clients that start a
command: it relays to the pedelec-dev --mcp running on port N (default ${DEFAULT_PORT}), with the token from
its token file.

The kit is served at /_pedelec/cdn/pedelec-elements.js (its chunks beside it) and /_pedelec/dist/…
with Access-Control-Allow-Origin: *, so a page from another origin — a Vite dev server at
http://localhost:5173, say — can load it: <script type="module"
src="http://127.0.0.1:7717/_pedelec/cdn/pedelec-elements.js">.

The openai agent's API key is read only from the environment variable PEDELEC_DEV_API_KEY (there is
no flag, so it never shows in the process list); it is sent to the endpoint and nowhere else.
PEDELEC_DEV_TIMEOUT_MS (default 60000) bounds how long the endpoint may stay silent.`;

/** `--mcp`, `--protocol current`. */
export function neededText(needs: NonNullable<CliFlag['needs']>): string {
  return needs.value === undefined ? `--${needs.flag}` : `--${needs.flag} ${needs.value}`;
}

/** `[--port N] [--agent scripted|operator|openai] [--allow-origin URL…] [--mcp]`, commands left out. */
function usageOf(flags: readonly CliFlag[]): string {
  return flags
    .filter((flag) => !flag.command)
    .map((flag) => {
      if (flag.kind === 'boolean') return `[--${flag.name}]`;
      const arg = flag.kind === 'choice' ? flag.values.join('|') : flag.kind === 'list' ? `${flag.arg}…` : flag.arg;
      return `[--${flag.name} ${arg}]`;
    })
    .join(' ');
}

/** How `--help` names a flag: `--port N`, `--allow-origin URL…`, `-h, --help`. */
function helpLabel(flag: CliFlag): string {
  const name = flag.short === undefined ? `--${flag.name}` : `-${flag.short}, --${flag.name}`;
  if (flag.kind === 'boolean') return name;
  return `${name} ${flag.arg}${flag.kind === 'list' ? '…' : ''}`;
}

/** The text `--help` gives a flag: its help, then its default and what it needs. */
function helpText(flag: CliFlag): string {
  const notes = [
    ...(flag.default === undefined ? [] : [`default ${flag.default}`]),
    ...(flag.needs ? [`needs ${neededText(flag.needs)}`] : []),
  ];
  return notes.length > 0 ? `${flag.help} (${notes.join('; ')})` : flag.help;
}

/** One flag a line (or several, wrapped), its text in a column after the widest label. */
function helpLines(flags: readonly CliFlag[]): string[] {
  const column = Math.max(...flags.map((flag) => helpLabel(flag).length)) + 1;
  return flags.flatMap((flag) =>
    wrap(helpText(flag), HELP_WIDTH - 2 - column).map(
      (line, i) => `  ${(i === 0 ? helpLabel(flag) : '').padEnd(column)}${line}`,
    ),
  );
}

/** Words into lines of at most `width` characters (a longer word keeps a line of its own). */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  return [...lines, line];
}
