/**
 * The bearer token of `/mcp`, kept in a file only the user can read (every-agent.md §4): a token
 * already in the file is reused, so an MCP client set up with it keeps working after a restart;
 * otherwise a new random one (128 bits) is written there. `pedelec-dev mcp` reads the same file.
 *
 * A file another local user could have planted or can read is refused, by the server and the relay
 * alike: a symbolic link (writing would follow it), a file that is not the user's, or one that others
 * may read or write. Where the system has no such owners and modes (Windows), only links are refused.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, lstatSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { DevCoreError } from '../errors.js';

const TOKEN = /^[0-9a-f]{32}$/;

/** Where a server on `port` keeps its token unless told otherwise: `~/.pedelec-dev/<port>.token`. */
export const defaultTokenFile = (port: number): string => join(homedir(), '.pedelec-dev', `${port}.token`);

/** Why `file` may not hold the token, or `null` when it may (or does not exist yet). */
function unsafe(file: string): string | null {
  let stat;
  try {
    stat = lstatSync(file);
  } catch {
    return null; // no file yet: it is created readable by the user only
  }
  if (stat.isSymbolicLink()) return 'it is a symbolic link';
  if (!stat.isFile()) return 'it is not a file';
  if (process.getuid && stat.uid !== process.getuid()) return 'it belongs to another user';
  if (process.platform !== 'win32' && (stat.mode & 0o077) !== 0)
    return `others may read or write it (mode ${(stat.mode & 0o777).toString(8)})`;
  return null;
}

/** Refuses a token file another user could have planted or can read (see above). */
function checkSafe(file: string): void {
  const why = unsafe(file);
  if (why)
    throw new DevCoreError(
      'TOKEN_FILE_UNSAFE',
      `The MCP token file ${file} is not safe to use: ${why}. Remove it (a new one is made), or choose another with --mcp-token-file.`,
    );
}

/**
 * The token in `file`, or `null` when there is none (no file, or not a token). A file that is not
 * safe to use is a `DevCoreError` (`TOKEN_FILE_UNSAFE`).
 */
export function readToken(file: string): string | null {
  checkSafe(file);
  try {
    const text = readFileSync(file, 'utf8').trim();
    return TOKEN.test(text) ? text : null;
  } catch {
    return null;
  }
}

/** The token in `file`, reused; else a new one, written there readable by the user only. */
export function tokenFromFile(file: string): string {
  const kept = readToken(file);
  if (kept) return kept;
  const token = randomBytes(16).toString('hex');
  try {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    writeFileSync(file, `${token}\n`, { mode: 0o600 });
    chmodSync(file, 0o600); // a file that existed (holding no token) keeps its mode otherwise
  } catch (error) {
    const why = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new DevCoreError(
      'TOKEN_FILE_FAILED',
      `Cannot write the MCP token to ${file} (${why}); choose another with --mcp-token-file.`,
    );
  }
  return token;
}
