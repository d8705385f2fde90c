/**
 * The harness of the Pedelec client tests (test/core/client/*.test.ts): clients on the fake Chrome port
 * of test/support/fake-chrome.ts, a session opened on one, a running turn, the error values and id
 * patterns the client uses; `clientHooks()` registers a fresh port before each test and disconnects
 * every client made through `client()` after it.
 */
import { afterEach, beforeEach } from 'node:test';
import { Pedelec, type PedelecOptions, type PedelecSession } from '../../../src/core/index.js';
import { installFakeChrome, uninstallFakeChrome, type FakePort } from '../../support/fake-chrome.js';
import { track, type Tracked } from '../../support/promises.js';
import { until } from '../../support/waits.js';

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Runs `fn` with setTimeout wrapped, returning the delays it asked for. The monotonic clock reads a
 * whole millisecond meanwhile, so a delay computed as `(now + ms) - now` is `ms` exactly: Node's clock
 * has sub-microsecond fractions, where that sum rounds (1234 came out as 1234.0000000000002).
 */
export function timerDelays(fn: () => void): unknown[] {
  const original = globalThis.setTimeout;
  const delays: unknown[] = [];
  (globalThis as any).setTimeout = (handler: any, delay?: any, ...args: any[]) => {
    delays.push(delay);
    return (original as any)(handler, delay, ...args);
  };
  const wholeMs = Math.floor(performance.now());
  performance.now = () => wholeMs; // an own property over Performance.prototype.now, deleted below
  try {
    fn();
  } finally {
    globalThis.setTimeout = original;
    delete (performance as { now?: unknown }).now;
  }
  return delays;
}

export const UNAVAILABLE = { code: 'EXTENSION_UNAVAILABLE', message: 'Pedelec extension is unavailable.' };
export const DISCONNECTED = { code: 'EXTENSION_DISCONNECTED', message: 'Pedelec extension disconnected.' };
export const CHANNEL_ID = /^pedelec_(\d+)_(.+)$/;
export const REQUEST_ID = /^sdk_(\d+)_(\d+)$/;
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const APPROVAL_HELD = [
  'get_settings',
  'list_providers',
  'create_session',
  'resume_session',
  'prepare_session',
  'list_assets',
  'create_asset_upload',
  'create_asset_download',
];
export const NOT_HELD = ['get_approval_status', 'send_text', 'submit_tool_result', 'end_session'];

export let fake: FakePort;
export let clients: Pedelec[] = [];

/**
 * Replaces this test's fake with one playing a 0.1.x extension (it refuses the current handshake), and
 * returns a client that has heard the refusal: it knows it talks to a 0.1.x extension.
 */
export async function legacyClient(options?: PedelecOptions): Promise<Pedelec> {
  uninstallFakeChrome();
  fake = installFakeChrome({ legacy: true });
  const c = client(options);
  await until(() => c.legacyExtension, 'the 0.1.x refusal of the handshake');
  return c;
}

export function client(options?: PedelecOptions): Pedelec {
  const c = new Pedelec(options);
  clients.push(c);
  return c;
}

/** Creates a session with provider and model given, answering create_session with `sessionId`. */
export async function openSession(
  c: Pedelec,
  sessionId = 's1',
  input: Record<string, unknown> = { provider: 'codex', model: 'gpt-5' },
) {
  const p = c.createSession(input as any);
  fake.respond({ sessionId }, fake.last('create_session'));
  return p;
}

/** Starts a user turn and answers its send_text request; the turn finishes on `done`. */
export function startTurn(session: PedelecSession<string>): Tracked<void> {
  const turn = track(session.sendText('hello'));
  fake.respond({}, fake.last('send_text'));
  return turn;
}

export function types(): string[] {
  return fake.posted.map((m) => m.type);
}

/**
 * Registers, at the top of a test file, a fresh fake port (`fake`, also handed to `installed`) before
 * each test, and after it every client made through `client()` disconnected.
 */
export function clientHooks(installed?: (port: FakePort) => void): void {
  beforeEach(() => {
    fake = installFakeChrome();
    clients = [];
    installed?.(fake);
  });

  afterEach(() => {
    // Clears pending timers (every promise a test leaves pending is tracked, so nothing is unhandled).
    clients.forEach((c) => {
      try {
        (c as any).disconnect?.();
      } catch {
        // not part of these tests
      }
    });
    uninstallFakeChrome();
  });
}
