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

test('the transports have their own entry, importable in Node; the core entry leaves them out', async () => {
  const transports = await import('../../dist/transports.js');
  assert.equal(typeof transports.websocketTransport, 'function');
  assert.equal(typeof transports.createMemoryPair, 'function');
  const core = await import('../../dist/core/index.js');
  assert.equal(core.websocketTransport, undefined);
  assert.equal(core.createMemoryPair, undefined);
  // Nor does the package root (and so the CDN file): they are for tests, demos and Node tools.
  const root = await import('../../dist/index.js');
  assert.equal(root.createMemoryPair, undefined);
  assert.equal(root.websocketTransport, undefined);
});

test("the protocol entry (what a Core shares with the kit) imports in Node: the kit's own validator", async () => {
  const protocol = await import('../../dist/protocol.js');
  const { compileArgsValidator: kitValidator } = await import('../../dist/core/schema/compile.js');
  assert.equal(protocol.compileArgsValidator, kitValidator);
  const validate = protocol.compileArgsValidator({ type: 'object', properties: { n: { type: 'integer' } } });
  assert.equal(validate({ n: 1 }), null);
  assert.deepEqual(
    validate({ n: 'x' }).map((error) => error.path),
    ['n'],
  );
  assert.deepEqual(protocol.pedelecError('X', 'why'), { code: 'X', message: 'why' });
  assert.equal(protocol.isLoopbackHost('[::1]'), true);
  assert.equal(protocol.isLoopbackHost('example.test'), false);
  // The answer WebMCP's tools resolve (every-agent.md §2), which pedelec-dev's MCP endpoint builds on.
  assert.deepEqual(protocol.callToolResult({ ok: true, result: { n: 1 } }), {
    content: [{ type: 'text', text: '{"n":1}' }],
    structuredContent: { n: 1 },
  });
  assert.deepEqual(protocol.callToolResult({ ok: true, result: [1] }), { content: [{ type: 'text', text: '[1]' }] });
  assert.deepEqual(protocol.callToolResult({ ok: false, error: { code: 'X', message: 'why' } }), {
    isError: true,
    content: [{ type: 'text', text: 'X: why' }],
    structuredContent: { error: { code: 'X', message: 'why' } },
  });
  const details = { errors: [{ path: 'a', message: 'a: must be a number' }] };
  assert.deepEqual(
    protocol.callToolResult({
      ok: false,
      error: { code: 'TOOL_ARGS_INVALID', message: 'a: must be a number', details },
    }).structuredContent,
    { error: { code: 'TOOL_ARGS_INVALID', message: 'a: must be a number', details } },
  );
  for (const name of [
    'APPROVAL_HELD_REQUESTS',
    'DEFAULT_TOOL_TIMEOUT_MS',
    'MAX_TIMER_MS',
    'ORIGIN_REFUSED_CLOSE_CODE',
  ]) {
    assert.ok(protocol[name] !== undefined, name);
  }
});

test('package root imports in Node without registering anything', async () => {
  const root = await import('../../dist/index.js');
  assert.equal(typeof root.normalizeError, 'function');
  // Lit's Node shim provides customElements, so a registration would not throw: ask it.
  for (const tag of [root.SESSION_TAG, root.TOOL_TAG, root.ARG_TAG, root.GUIDANCE_TAG, root.CHAT_TAG]) {
    assert.equal(typeof tag, 'string');
    assert.equal(globalThis.customElements?.get(tag), undefined, `${tag} is not registered`);
  }
});

test('in Node a client constructs, is unavailable, and every request rejects EXTENSION_UNAVAILABLE', async () => {
  const { Pedelec } = await import('../../dist/core/index.js');
  const client = new Pedelec();
  const expected = { code: 'EXTENSION_UNAVAILABLE', message: 'Pedelec SDK must run in a browser page context.' };
  for (const attempt of [
    () => client.getSettings(),
    () => client.createSession({ provider: 'codex', model: 'm' }),
    () => client.request('anything'),
  ]) {
    await assert.rejects(attempt(), (error) => {
      assert.deepEqual({ code: error.code, message: error.message }, expected);
      assert.equal(error instanceof Error, false);
      return true;
    });
  }
});

test('every entry point the README names resolves through the package exports (as a user imports it)', async () => {
  const { existsSync } = await import('node:fs');
  const { fileURLToPath } = await import('node:url');
  const entries = [
    'pedelec-elements',
    'pedelec-elements/core',
    'pedelec-elements/transports',
    'pedelec-elements/protocol',
    'pedelec-elements/define.js',
    'pedelec-elements/define/pedelec-tool.js',
    'pedelec-elements/define/pedelec-tool',
    'pedelec-elements/define/pedelec-session.js',
    'pedelec-elements/react',
    'pedelec-elements/vue',
    'pedelec-elements/markdown',
    'pedelec-elements/cdn/pedelec-elements.js',
    'pedelec-elements/custom-elements.json',
  ];
  for (const entry of entries) {
    const file = fileURLToPath(import.meta.resolve(entry));
    assert.ok(existsSync(file), `${entry} → ${file} exists`);
    assert.ok(!file.endsWith('.js.js'), `${entry} → ${file}`);
  }
});
