#!/usr/bin/env node
/**
 * `pedelec-dev`: starts the development Core, prints where everything is, and stops cleanly on
 * Ctrl+C / SIGTERM (sessions ended, sockets closed, exit code 0). Start-up mistakes — a bad flag, a
 * bad script file, a port in use — print one clear line and exit 1.
 */
import { HELP, parseCli } from './args.js';
import { DevCoreError } from './errors.js';
import { cliCommand, packageVersion } from './package-files.js';
import { MAX_LISTED_PAGES, pagesIn } from './pages.js';
import { isLoopbackHost } from './security.js';
import { startDevCore, type DevCore } from './server.js';

/** If stopping hangs (a stuck socket), exit anyway after this long. */
const STOP_GRACE_MS = 5000;

async function main(): Promise<void> {
  const command = parseCli(process.argv.slice(2));
  if (command.kind === 'help') return void console.log(HELP);
  if (command.kind === 'version') return void console.log(packageVersion());

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

  core = await startDevCore(options);
  const agent = options.agent ?? 'scripted';
  const settings = [
    `agent: ${agent}`,
    `approval: ${options.approval ?? 'auto'}`,
    `protocol: ${options.protocol ?? 'current'}${options.fragments === false ? ' (no fragments)' : ''}`,
    ...(options.strictProviders ? ['strict providers'] : []),
    ...(options.allowNoOrigin ? ['clients without Origin allowed'] : []),
  ];
  const lines = [`pedelec-dev ${packageVersion()} — ${settings.join(', ')}`, ...pageLines(core.url, options.serveDir)];
  lines.push(`  Bridge:    ${core.bridgeUrl}`, `  Inspector: ${core.inspectorUrl}`);
  // How to start this installation from anywhere: its own absolute path, not a package name that
  // `npx` would look up on the registry.
  lines.push(`  Command:   ${cliCommand()}  (from any folder; add flags, --help lists them)`);
  if (options.allowRemote && !isLoopbackHost(core.host))
    lines.push(`  Warning: listening on ${core.host}, reachable from other machines.`);
  lines.push('Press Ctrl+C to stop.');
  console.log(lines.join('\n'));
  stop(); // a signal that came during start-up
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
