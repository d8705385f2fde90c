/**
 * Code loaded on first use (src/core/lazy-module.ts): one import shared by every caller; a failed one
 * is a CHUNK_LOAD_FAILED value, and the next caller tries again.
 */
import { describe, it } from 'node:test';
import { expect } from '../support/expect.js';
import { lazyModule } from '../../src/core/lazy-module.js';
import { rejection } from '../support/promises.js';

describe('lazyModule', () => {
  it('imports once, whoever asks and however often', async () => {
    let imports = 0;
    const load = lazyModule(async () => ({ n: ++imports }), 'a part');
    const [a, b] = await Promise.all([load(), load()]);
    expect(a).to.equal(b);
    expect(await load()).to.equal(a);
    expect(imports).to.equal(1);
  });

  it('a failed import rejects CHUNK_LOAD_FAILED with why; the next call imports again', async () => {
    let attempts = 0;
    const load = lazyModule(async () => {
      if (++attempts === 1) throw new TypeError('Failed to fetch dynamically imported module');
      return { ok: true };
    }, "the kit's file transfer code");
    expect(await rejection(load())).to.deep.equal({
      code: 'CHUNK_LOAD_FAILED',
      message: 'Failed to fetch dynamically imported module',
    });
    expect(await load()).to.deep.equal({ ok: true });
    expect(attempts).to.equal(2);
  });
});
