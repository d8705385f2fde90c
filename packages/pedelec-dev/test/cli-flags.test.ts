// The command line's flags as parseCli reads them, without starting a process (the started command
// is tested in process/cli.test.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DevCoreError, parseCli } from '../src/index.js';

test('flags parse into options; --allow-origin takes several URLs, repeated or comma-separated', async () => {
  const command = parseCli([
    '--port',
    '8000',
    '--allow-origin',
    'http://a.test:1',
    'https://b.test:*',
    '--allow-origin',
    'http://c.test,http://d.test:2',
    '--approval',
    'prompt',
    '--strict-providers',
    '--agent',
    'operator',
  ]);
  assert.ok(command.kind === 'start');
  assert.deepEqual(command.options, {
    port: 8000,
    allowOrigins: ['http://a.test:1', 'https://b.test:*', 'http://c.test', 'http://d.test:2'],
    approval: 'prompt',
    strictProviders: true,
    agent: 'operator',
  });
  assert.deepEqual(parseCli([]), { kind: 'start', options: {} });
  assert.deepEqual(parseCli(['--protocol', '0.1']), { kind: 'start', options: { protocol: '0.1' } });
  assert.deepEqual(parseCli(['--protocol', 'current', '--no-fragments']), {
    kind: 'start',
    options: { protocol: 'current', fragments: false },
  });
  assert.deepEqual(parseCli(['--no-fragments']), { kind: 'start', options: { fragments: false } });
  assert.deepEqual(parseCli(['--core-statuses']), { kind: 'start', options: { coreStatuses: true } });
  assert.deepEqual(parseCli(['--max-sessions', '50', '--session-idle-ms', '60000', '--asset-quota-mb', '2']), {
    kind: 'start',
    options: { maxSessions: 50, sessionIdleMs: 60_000, assetQuotaBytes: 2 * 1024 * 1024 },
  });
  assert.throws(
    () => parseCli(['--protocol', 'latest']),
    (error) =>
      error instanceof DevCoreError && error.code === 'INVALID_OPTION' && /--protocol latest/.test(error.message),
  );
  assert.throws(() => parseCli(['--allow-origin']), /argument missing/);
  assert.throws(() => parseCli(['stray']), /Unexpected argument/);
});
