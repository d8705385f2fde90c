/**
 * The bearer token of `/mcp`, kept in a file only the user can read (every-agent.md §4): a token
 * already in the file is reused, so an MCP client set up with it keeps working after a restart;
 * otherwise a new random one (128 bits) is written there. `pedelec-dev mcp` reads the same file.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { DevCoreError } from '../errors.js';

const TOKEN = /^[0-9a-f]{32}$/;

/** Where a server on `port` keeps its token unless told otherwise: `~/.pedelec-dev/<port>.token`. */
export const defaultTokenFile = (port: number): string => join(homedir(), '.pedelec-dev', `${port}.token`);

/** The token in `file`, or `null` when there is none (no file, or not a token). */
export function readToken(file: string): string | null {
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
