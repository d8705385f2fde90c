/**
 * Where the development Cores of the browser tests listen: test/plugins/dev-core.mjs starts them beside
 * the test server and serves their addresses as the module `/__pedelec-dev.js`.
 */

export type DevCoreInfo = { url: string; bridgeUrl: string; port: number };
export type DevCores = DevCoreInfo & {
  /** The scripted agent with the plugin's `--script` rules (`count`, `add N and M`, `bench`). */
  rules: DevCoreInfo;
  /** Closed and started again on the same port by `GET /__pedelec-dev/restart`. */
  restartable: DevCoreInfo;
  /** `--protocol 0.1`: fragments only, `done`-less turns that end on `idle`, no snapshots. */
  legacy: DevCoreInfo;
  /** `--no-fragments`: replies only as whole `chat_message`s, as from a provider that does not stream. */
  whole: DevCoreInfo;
  /** `--mcp`: pages link their tools on `toolsUrl`, with `linkKey` (the session's `mcpKey`). */
  mcp: DevCoreInfo & { toolsUrl: string; linkKey: string };
  /** A loopback port nothing listens on. */
  closedPort: number;
  /** How many tool calls the `bench` rule makes in one turn. */
  benchCalls: number;
};

/** A module the test server makes up (not a file): imported by URL, so the compiler does not look for it. */
const DEV_CORE_MODULE: string = '/__pedelec-dev.js';

/** The Cores' addresses. */
export async function devCores(): Promise<DevCores> {
  return ((await import(/* @vite-ignore */ DEV_CORE_MODULE)) as { devCore: DevCores }).devCore;
}

let bridgeCount = 0;
/**
 * A bridge URL of the caller's own for a Core (a query string the Core ignores): same Core, but a
 * shared client of its own on the page, so an earlier test's client, still closing, is never reused.
 */
export function bridgeOf(core: { bridgeUrl: string }, label: string): string {
  return `${core.bridgeUrl}?test=${label}-${++bridgeCount}`;
}
