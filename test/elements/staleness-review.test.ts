/**
 * Staleness (spec/elements.md "Changes after start"), found in review; each test failed before its
 * fix: what is sent is what was taken at the start (a change during the approval wait is reported, not
 * sent and reported); a reorder is not a new difference; a blank bridge is the extension, whose id counts.
 */
import { expect } from '@open-wc/testing';
import '../../src/define.js';
import type { PedelecSessionElement, PedelecToolsChangedEvent } from '../../src/index.js';
import {
  approvedStatus,
  endSession,
  installFakeChrome,
  mount,
  nextTask,
  record,
  startSession,
  uninstallFakeChrome,
  type FakePort,
} from './helpers.js';

const jsTool = (name: string) => ({
  name,
  description: `${name}.`,
  argsSchema: { type: 'object' as const, properties: {} },
});

describe('staleness: what was sent, in any order, on the bridge as used', () => {
  let fake: FakePort;
  beforeEach(() => (fake = installFakeChrome()));
  afterEach(() => uninstallFakeChrome());

  it('provider/model changed while waiting for approval: what is sent and what is compared agree', async () => {
    const host = await mount('<pedelec-session provider="codex" model="m" guidance="G."></pedelec-session>');
    const s = host.querySelector('pedelec-session') as PedelecSessionElement;
    await nextTask();
    const changes = record<PedelecToolsChangedEvent>(s, 'pedelec-tools-changed');
    const started = s.start();
    await fake.request('get_approval_status'); // waiting for approval
    s.setAttribute('provider', 'claude');
    s.setAttribute('model', 'm2');
    await nextTask();
    await fake.answer('get_approval_status', approvedStatus());
    const create = await fake.answer('create_session', { sessionId: 's1' });
    await started;
    await nextTask();
    try {
      // What was sent is what the start took; the change made meanwhile is a later change, reported once.
      expect([create.input.provider, create.input.model]).to.deep.equal(['codex', 'm']);
      expect(changes.map((e) => e.detail.config)).to.deep.equal([['provider', 'model']]);
      expect(s.toolsStale).to.equal(true);
    } finally {
      await endSession(s, fake);
    }
  });

  it('reordering tools that were already reported as added fires no second pedelec-tools-changed', async () => {
    const host = await mount('<pedelec-session provider="codex" model="m" guidance="G."></pedelec-session>');
    const s = host.querySelector('pedelec-session') as PedelecSessionElement;
    await nextTask();
    await startSession(s, fake);
    const changes = record<PedelecToolsChangedEvent>(s, 'pedelec-tools-changed');
    try {
      s.tools = [jsTool('b'), jsTool('c')];
      await nextTask();
      expect(changes.length).to.equal(1);
      s.tools = [jsTool('c'), jsTool('b')]; // same set, same difference from what was sent
      await nextTask();
      expect(changes.map((e) => e.detail.added)).to.deep.equal([['b', 'c']]);
    } finally {
      await endSession(s, fake);
    }
  });

  it('a blank bridge attribute is the extension: extension-id changed after start still makes the session stale', async () => {
    const host = await mount('<pedelec-session bridge=" " provider="codex" model="m" guidance="G."></pedelec-session>');
    const s = host.querySelector('pedelec-session') as PedelecSessionElement;
    await nextTask();
    await startSession(s, fake); // bridge " " is parsed (trimmed) as the extension
    const changes = record<PedelecToolsChangedEvent>(s, 'pedelec-tools-changed');
    try {
      s.setAttribute('extension-id', 'abcdefghijklmnopabcdefghijklmnop'); // restart() would switch extensions
      await nextTask();
      expect(s.toolsStale).to.equal(true);
      expect(changes.map((e) => e.detail.config)).to.deep.equal([['bridge']]);
    } finally {
      await endSession(s, fake);
    }
  });
});
