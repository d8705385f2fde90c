/**
 * Today's Pedelec SDK (0.4.6) end to end, in Chromium and Firefox, against the development Core
 * (test/plugins/dev-core.mjs) over a real socket: a `<pedelec-session effort-level="high">` turn with a
 * tool call; a `model` without `provider`; `session.resume()` after `end()` keeping the thread; and
 * the same pages against a 0.1 Core (`--protocol 0.1`) — an element page and a core-only program.
 * The scripted agent's `/session` says what the session was created with.
 */
import { expect } from '@open-wc/testing';
import '../../src/define.js';
import { Pedelec, type PedelecSession } from '../../src/core/index.js';
import type { PedelecChatDeltaEvent, PedelecSessionElement, PedelecToolElement } from '../../src/index.js';
import { websocketTransport } from '../../src/transports.js';
import { mount, record } from '../elements/helpers.js';
import { bridgeOf, devCores, type DevCores } from '../support/dev-cores.js';

let devCore: DevCores;
const text = (deltas: PedelecChatDeltaEvent[]) => deltas.map((e) => e.detail.text).join('');
/** What the scripted agent's `/session` said the session was created with. */
const settingsIn = (reply: string) => JSON.parse(/Session settings: (\{.*\})/.exec(reply)![1]!);

describe("today's Pedelec SDK, end to end", () => {
  before(async () => {
    devCore = await devCores();
  });
  const ended: Array<{ end(): Promise<void> }> = [];
  afterEach(async () => {
    await Promise.all(ended.splice(0).map((s) => s.end().catch(() => {})));
  });

  /** A session element with a counter tool, on `bridge`, with `attributes`. */
  async function counterPage(bridge: string, attributes: string): Promise<PedelecSessionElement> {
    const host = await mount(`
      <pedelec-session bridge="${bridge}" ${attributes}>
        <pedelec-tool name="update_counter" description="Change the counter by delta." timeout-ms="5000">
          <pedelec-arg name="delta" type="integer" required></pedelec-arg>
        </pedelec-tool>
      </pedelec-session>`);
    const session = host.querySelector<PedelecSessionElement>('pedelec-session')!;
    let value = 0;
    session.querySelector<PedelecToolElement>('pedelec-tool')!.handler = (args) => ({
      value: (value += (args as { delta: number }).delta),
    });
    ended.push(session);
    return session;
  }

  it('<pedelec-session effort-level="high">: created in profile mode at that level; a turn calls a tool', async () => {
    const session = await counterPage(bridgeOf(devCore, 'effort'), 'provider="scripted" effort-level="high"');
    const deltas = record<PedelecChatDeltaEvent>(session, 'pedelec-chat-delta');
    await session.sendText('/session');
    expect(settingsIn(text(deltas))).to.deep.include({ provider: 'scripted', model: 'profile', effortLevel: 'high' });
    expect(session.session!.effortLevel).to.equal('high');
    deltas.length = 0;
    await session.sendText('/call update_counter {"delta":2}');
    expect(text(deltas)).to.contain('update_counter returned {"value":2}');
    expect(session.status).to.equal('idle');
  });

  it('<pedelec-session model="…"> without provider: the default provider, with that model', async () => {
    const session = await counterPage(bridgeOf(devCore, 'model'), 'model="scripted-large" effort="max"');
    const deltas = record<PedelecChatDeltaEvent>(session, 'pedelec-chat-delta');
    await session.sendText('/session');
    const settings = settingsIn(text(deltas));
    expect(settings).to.deep.include({ model: 'scripted-large', effort: 'max', effortLevel: null });
    expect(settings.provider).to.be.a('string').and.not.equal('');
    expect(session.session!.model).to.equal('scripted-large');
    expect(session.session!.effortLevel).to.equal(undefined);
  });

  it('session.resume() after end(): the same handle, the same conversation (usage keeps growing)', async () => {
    const client = new Pedelec({ transport: websocketTransport(bridgeOf(devCore, 'resume')) });
    try {
      const session: PedelecSession = await client.createSession({ provider: 'scripted' });
      const chat: string[] = [];
      session.onChat((whole) => chat.push(whole));
      await session.sendText('hello there');
      const before = session.usage.totalTokens!;
      expect(before).to.be.a('number').and.above(0);
      await session.end();
      expect(session.getStatus()).to.equal('ended');
      await session.resume();
      expect(session.getStatus()).to.equal('idle');
      await session.sendText('and again');
      // The agent's conversation was kept: its size (the usage estimate) grew from where it was.
      expect(session.usage.totalTokens).to.be.above(before);
      expect(chat).to.have.length(2);
      await session.end();
    } finally {
      client.disconnect();
    }
  });

  it('an element page against a 0.1 Core: create, send, a tool call, the whole reply once', async () => {
    const session = await counterPage(bridgeOf(devCore.legacy, 'legacy-page'), 'provider="scripted"');
    const deltas = record<PedelecChatDeltaEvent>(session, 'pedelec-chat-delta');
    await session.sendText('/call update_counter {"delta":3}');
    expect(text(deltas)).to.equal('Calling update_counter with {"delta":3}…\nupdate_counter returned {"value":3}');
    expect(session.session!.workspace.path, 'a 0.1 extension has no workspaces').to.equal(null);
  });

  it('a core-only program against a 0.1 Core: create, send, a tool call, whole messages through onChat', async () => {
    const client = new Pedelec({ transport: websocketTransport(bridgeOf(devCore.legacy, 'legacy-core')) });
    try {
      const counter = {
        name: 'update_counter',
        description: 'Change the counter by delta.',
        argsSchema: {
          type: 'object' as const,
          properties: { delta: { type: 'integer' as const } },
          required: ['delta'],
        },
      };
      const session = await client.createSession({ provider: 'scripted', skills: { guidance: '', tools: [counter] } });
      const whole: string[] = [];
      const fragments: string[] = [];
      session.onChat((message) => whole.push(message));
      session.onChatDelta((fragment) => fragments.push(fragment));
      const calls: unknown[] = [];
      session.onTool('update_counter', (args) => (calls.push(args), { value: 1 }));
      await session.sendText('/call update_counter {"delta":1}');
      expect(calls).to.deep.equal([{ delta: 1 }]);
      expect(client.legacyExtension).to.equal(true);
      // 0.1 streams fragments only: each whole message is what they built.
      expect(whole.join('')).to.equal(fragments.join(''));
      expect(whole).to.deep.equal([
        'Calling update_counter with {"delta":1}…\n',
        'update_counter returned {"value":1}',
      ]);
      await session.end();
    } finally {
      client.disconnect();
    }
  });
});
