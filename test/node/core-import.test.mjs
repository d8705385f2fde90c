// The core entry must import and work in Node (SSR, unit tests) with no DOM at all.
import { test } from 'node:test';
import assert from 'node:assert/strict';

test('core entry imports in Node without a DOM', async () => {
  assert.equal(typeof globalThis.window, 'undefined');
  assert.equal(typeof globalThis.HTMLElement, 'undefined');
  const core = await import('../../dist/core/index.js');
  assert.equal(typeof core.normalizeError, 'function');
  assert.deepEqual(core.normalizeError(new Error('boom'), 'X', 'fallback'), { code: 'X', message: 'boom' });
});

test('package root imports in Node without registering anything', async () => {
  const root = await import('../../dist/index.js');
  assert.equal(typeof root.normalizeError, 'function');
});
