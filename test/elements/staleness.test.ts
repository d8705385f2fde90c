/**
 * Staleness (src/elements/session/staleness.ts): what changed since the session was created, as plain
 * data. The element's behaviour (toolsStale, one pedelec-tools-changed per change) is tested in
 * session.test.ts; this pins down the comparison itself.
 */
import { expect } from '@open-wc/testing';
import type { SerializableSkillsManifest } from '../../src/core/index.js';
import { Staleness, type SessionConfig } from '../../src/elements/session/staleness.js';

const config: SessionConfig = { provider: 'codex', model: 'm', guidance: 'g', bridge: '', novalidate: 'false' };
const tool = (name: string, description = 'd') => ({
  name,
  description,
  argsSchema: { type: 'object' as const, properties: {} },
});
const manifest = (...tools: ReturnType<typeof tool>[]): SerializableSkillsManifest => ({ guidance: 'g', tools });

describe('Staleness', () => {
  it('reports nothing before a snapshot, and nothing while everything is as sent', () => {
    const s = new Staleness();
    expect(s.check(manifest(tool('a')), config)).to.equal(null);
    s.take(manifest(tool('a')), config);
    expect(s.sent('a')).to.equal(true);
    expect(s.sent('b')).to.equal(false);
    expect(s.check(manifest(tool('a')), { ...config })).to.equal(null);
    expect(s.stale).to.equal(false);
  });

  it('reports added, removed and changed tools and changed configuration, each change once', () => {
    const s = new Staleness();
    s.take(manifest(tool('a'), tool('b')), config);
    const now = manifest(tool('a', 'new description'), tool('c'));
    const change = { added: ['c'], removed: ['b'], changed: ['a'], config: ['model'] };
    expect(s.check(now, { ...config, model: 'other' })).to.deep.equal(change);
    expect(s.stale).to.equal(true);
    expect(s.check(now, { ...config, model: 'other' }), 'the same change again').to.equal(null);
    // Key order does not make a tool "changed": tools are compared as canonical JSON.
    const reordered = { argsSchema: { properties: {}, type: 'object' as const }, description: 'd', name: 'b' };
    s.take(manifest(tool('b')), config);
    expect(s.check({ guidance: 'g', tools: [reordered] }, config)).to.equal(null);
  });

  it('becomes fresh again when the change is undone, and forgets everything on clear()', () => {
    const s = new Staleness();
    s.take(manifest(tool('a')), config);
    expect(s.check(manifest(), config)).to.deep.equal({ added: [], removed: ['a'], changed: [], config: [] });
    expect(s.check(manifest(tool('a')), config)).to.equal(null);
    expect(s.stale).to.equal(false);
    s.clear();
    expect(s.sent('a')).to.equal(false);
    expect(s.check(manifest(), config)).to.equal(null);
  });
});
