#!/usr/bin/env node
// The `pedelec-dev` command: runs the built dist/cli.js. A file of its own, kept in the repository, so
// that `npm ci` links the command in a fresh clone before anything is built (npm links a package's
// bin only when the file exists); `node dist/cli.js` is the same command.
import { existsSync } from 'node:fs';

const cli = new URL('../dist/cli.js', import.meta.url);
if (!existsSync(cli)) {
  console.error(
    'pedelec-dev: it is not built yet (dist/cli.js is missing): run `npm run build` at the repository root.',
  );
  process.exit(1);
}
await import(cli.href);
