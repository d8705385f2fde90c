#!/usr/bin/env node
/**
 * `pedelec-dev`: starts the development Core, prints where everything is, and stops cleanly on
 * Ctrl+C / SIGTERM (sessions ended, sockets closed, exit code 0). Start-up mistakes — a bad flag, a
 * bad script file, a port in use — print one clear line and exit 1.
 */
import { HELP } from './cli/help.js';
import { parseCli } from './cli/parse.js';
import { DevCoreError } from './errors.js';
import { cliCommand, cliPath, packageVersion } from './package-files.js';
import { MAX_LISTED_PAGES, pagesIn } from './http/pages.js';
import { isLoopbackHost } from './http/security.js';
import { DEFAULT_PORT, startDevCore, type DevCore, type DevCoreOptions } from './server.js';
import { runStdio } from './mcp/stdio.js';
import { defaultTokenFile } from './mcp/token-file.js';

/** If stopping hangs (a stuck socket), exit anyway after this long. */
const STOP_GRACE_MS = 5000;

async function main(): Promise<void> {
  const command = parseCli(process.argv.slice(2));
  if (command.kind === 'help') return void console.log(HELP);
  if (command.kind === 'version') return void console.log(packageVersion());
  if (command.kind === 'stdio') {
    await runStdio({ ...command, version: packageVersion() });
    process.exit(0);
  }

  const { options } = command;
  // Signal handlers go in before anything starts (and before the banner, which a supervisor may wait
  // for): a signal that arrives during start-up is then honoured once the server is up.
  let core: DevCore | null = null;
  let signalled: string | null = null;
  let stopping = false;
  const stop = () => {
    if (stopping || !core || !signalled) return;
    stopping = true;
    console.log(`\npedelec-dev: ${signalled}, stopping…`);
    setTimeout(() => process.exit(0), STOP_GRACE_MS).unref();
    core.close().then(
      () => process.exit(0),
      (error) => {
        console.error('pedelec-dev: error while stopping:', error);
        process.exit(1);
      },
    );
  };
  const onSignal = (signal: string) => {
    signalled ??= signal;
    stop();
  };
  process.on('SIGINT', () => onSignal('SIGINT'));
  process.on('SIGTERM', () => onSignal('SIGTERM'));

  // The MCP token is kept in a file named by the port (known once listening: --port 0).
  core = await startDevCore(options.mcp ? { mcpTokenFile: defaultTokenFile, ...options } : options);
  const agent = options.agent ?? 'scripted';
  const settings = [
    `agent: ${agent}`,
    `approval: ${options.approval ?? 'auto'}`,
    `protocol: ${options.protocol ?? 'current'}${protocolNotes(options)}`,
    ...(options.strictProviders ? ['strict providers'] : []),
    ...(options.allowNoOrigin ? ['clients without Origin allowed'] : []),
    ...(options.mcp
      ? [
          `MCP on${options.mcpApproval === 'prompt' ? ' (each call approved in the inspector)' : ''}`,
          ...(options.mcpOpenLinks ? ['page links open'] : []),
        ]
      : []),
  ];
  const lines = [`pedelec-dev ${packageVersion()} — ${settings.join(', ')}`, ...pageLines(core.url, options.serveDir)];
  lines.push(`  Bridge:    ${core.bridgeUrl}`, `  Inspector: ${core.inspectorUrl}`);
  // How to start this installation from anywhere: its own absolute path, not a package name that
  // `npx` would look up on the registry.
  lines.push(`  Command:   ${cliCommand()}  (from any folder; add flags, --help lists them)`);
  if (core.mcpUrl) lines.push(...mcpLines(core));
  if (options.allowRemote && !isLoopbackHost(core.host))
    lines.push(`  Warning: listening on ${core.host}, reachable from other machines.`);
  lines.push('Press Ctrl+C to stop.');
  console.log(lines.join('\n'));
  stop(); // a signal that came during start-up
}

/** What the banner adds to the protocol's name: the flags that change how it is spoken. */
function protocolNotes(options: DevCoreOptions): string {
  const notes = [
    ...(options.fragments === false ? ['no fragments'] : []),
    ...(options.coreStatuses ? ['Core statuses'] : []),
  ];
  return notes.length > 0 ? ` (${notes.join(', ')})` : '';
}

/**
 * Where MCP clients connect, and how to set up the usual ones: the stdio form first (it reads the
 * token file, so it survives restarts), with this file's absolute path, then the HTTP form.
 */
function mcpLines(core: DevCore): string[] {
  const args = ['mcp'];
  if (core.port !== DEFAULT_PORT) args.push('--port', String(core.port));
  if (core.mcpTokenFile && core.mcpTokenFile !== defaultTokenFile(core.port))
    args.push('--mcp-token-file', core.mcpTokenFile);
  const shell = cliCommand(...args);
  const cursor = JSON.stringify({ mcpServers: { pedelec: { command: 'node', args: [cliPath, ...args] } } });
  const header = `Authorization: Bearer ${core.mcpToken}`;
  return [
    `  Page link: ${core.toolsUrl}  (<pedelec-session mcp="${core.toolsUrl}">)`,
    core.mcpLinkKey
      ? `  Link key:  ${core.mcpLinkKey}  (pages served here get it; on others set session.mcpKey to it)`
      : '  Link key:  none needed (--mcp-open-links: any allowed page may link its tools)',
    `  MCP:       ${core.mcpUrl}  (header ${header}; the token lasts until you delete ${core.mcpTokenFile})`,
    'MCP clients, over stdio (stable across restarts):',
    `  Claude Code:   claude mcp add pedelec -- ${shell}`,
    `  Cursor:        .cursor/mcp.json ${cursor}`,
    `  Inspector CLI: npx @modelcontextprotocol/inspector --cli ${shell} --method tools/list`,
    'Or over HTTP, with the token (it lasts until you delete its file):',
    `  Claude Code:   claude mcp add --transport http pedelec ${core.mcpUrl} --header "${header}"`,
    `  Inspector CLI: npx @modelcontextprotocol/inspector --cli ${core.mcpUrl} --transport http --header "${header}" --method tools/list`,
  ];
}

/** The served pages, each on a line of its own (`npm start`: every demo), or where to put them. */
function pageLines(base: string, serveDir: string | undefined): string[] {
  if (serveDir === undefined) return [`  Page:      ${base}/  (pass --serve DIR to serve your pages)`];
  const pages = pagesIn(serveDir);
  if (pages.length === 0) return [`  Page:      ${base}/`];
  const shown = pages.slice(0, MAX_LISTED_PAGES).map((path) => `${base}${path}`);
  if (pages.length > shown.length) shown.push(`… and ${pages.length - shown.length} more in ${serveDir}`);
  return shown.map((line, i) => `${i === 0 ? (pages.length > 1 ? '  Pages:' : '  Page:') : ''}`.padEnd(13) + line);
}

main().catch((error: unknown) => {
  if (error instanceof DevCoreError) console.error(`pedelec-dev: ${error.message}`);
  else console.error('pedelec-dev: could not start:', error);
  process.exit(1);
});
