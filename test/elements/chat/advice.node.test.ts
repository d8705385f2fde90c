/**
 * The chat's availability line (src/elements/chat/advice.ts), in Node: what `checkAvailability()`
 * answers, turned into what the user should do next.
 */
import { describe, it } from 'node:test';
import type { PedelecAvailability } from '../../../src/core/index.js';
import { ADVICE, adviceFor, errorAdvice, originAdvice, providerAdvice } from '../../../src/elements/chat/advice.js';
import { expect } from '../../support/expect.js';

const origin = 'http://localhost:8000';
const available: PedelecAvailability = {
  available: true,
  extension: { available: true },
  approval: { approved: true, origin },
  desktop: { available: true, launchAttempted: true },
};
const notInstalled: PedelecAvailability = {
  available: false,
  extension: { available: false },
  approval: { approved: false, origin },
  desktop: { available: false, launchAttempted: false },
};

describe('chat advice', () => {
  it('nothing to say when the agent is available', () => {
    expect(adviceFor(available, undefined)).to.equal('');
  });

  it('no extension: install it', () => {
    expect(adviceFor(notInstalled, undefined)).to.equal(ADVICE.extension);
    expect(adviceFor(notInstalled, '')).to.equal(ADVICE.extension);
  });

  it('a development Core that is not reachable: start it (by its error, or a ws: bridge with nothing there)', () => {
    const unreachable = {
      code: 'BRIDGE_UNAVAILABLE',
      message: 'Development Core not reachable at ws://127.0.0.1:7717/',
    };
    expect(adviceFor({ ...notInstalled, error: unreachable }, 'ws://127.0.0.1:7717/bridge')).to.equal(ADVICE.dev);
    expect(adviceFor(notInstalled, 'wss://localhost:7717/bridge')).to.equal(ADVICE.dev);
  });

  it('a development Core that refuses the page’s origin: restart it with --allow-origin, not start another', () => {
    const refused = {
      code: 'BRIDGE_ORIGIN_REFUSED',
      message: 'Development Core at ws://127.0.0.1:7717/bridge: origin not allowed: start pedelec-dev with …',
      details: { url: 'ws://127.0.0.1:7717/bridge', reason: 'origin not allowed: start pedelec-dev with …' },
    };
    // As checkAvailability() reports it: the Core answered (it is running), so the error is kept.
    const answered = { ...notInstalled, extension: { available: true }, error: refused };
    const page = { ...answered, approval: { approved: false, origin: 'http://app.test:3000' } };
    const advice = adviceFor(page, 'ws://127.0.0.1:7717/bridge');
    expect(advice).to.equal(
      "The development Core refuses this page's origin: restart pedelec-dev with --allow-origin http://app.test:3000, then send your message again.",
    );
    expect(advice).to.not.match(/not reachable|start it/);
    // A page opened from a file (origin "null") cannot be allowed: it has to be served.
    const file = { ...answered, approval: { approved: false, origin: 'null' } };
    expect(adviceFor(file, 'ws://127.0.0.1:7717/bridge')).to.equal(ADVICE.fileOrigin);
  });

  it('every line is plain text (no Markdown backticks) and tells no one to npx a package that is not published', () => {
    const lines = [...Object.values(ADVICE), originAdvice('http://localhost:5173'), originAdvice('null')];
    for (const line of lines) {
      expect(line, line).to.not.contain('`');
      expect(line, line).to.not.match(/\bnpx\b/);
    }
  });

  it('an unusable bridge (INVALID_INPUT) says what is wrong with it', () => {
    const error = { code: 'INVALID_INPUT', message: 'bridge must be a ws:// or wss:// URL, got "http://x"' };
    expect(adviceFor({ ...notInstalled, error }, 'http://x')).to.equal(error.message);
  });

  it('installed, origin not approved: approve it (the extension’s own message when it gave one)', () => {
    const notApproved = { ...available, available: false, approval: { approved: false, origin } };
    expect(adviceFor(notApproved, undefined)).to.equal(ADVICE.approve);
    const error = { code: 'APPROVAL_REJECTED', message: 'The user rejected this site.' };
    expect(adviceFor({ ...notApproved, error }, undefined)).to.equal(error.message);
  });

  it('approved but Desktop not answering: open the Desktop app', () => {
    const noDesktop = { ...available, available: false, desktop: { available: false, launchAttempted: true } };
    expect(adviceFor(noDesktop, undefined)).to.equal(ADVICE.desktop);
  });

  it('a default provider that is not set or not available: choose one', () => {
    const codex = { name: 'Codex', code: 'codex', available: true, isDefault: true, error: null };
    expect(providerAdvice('codex', [codex])).to.equal('');
    expect(providerAdvice(null, [codex])).to.equal(ADVICE.provider);
    expect(providerAdvice('codex', [{ ...codex, available: false }])).to.equal(ADVICE.provider);
    expect(providerAdvice('claude', [codex])).to.equal(ADVICE.provider);
  });
});

describe("the chat's words for today's Pedelec failures", () => {
  it('a model Pedelec did not apply: update Pedelec', () => {
    const error = {
      code: 'SDK_PROTOCOL_ERROR',
      message: 'The connected Pedelec Extension/Desktop does not support explicit model configuration.',
      details: { feature: 'explicitModelConfig' },
    };
    expect(errorAdvice(error)).to.equal(ADVICE.modelNotApplied);
  });

  it('a workspace Pedelec refused or cannot open: check the folder', () => {
    for (const code of ['WORKSPACE_OPEN_FAILED', 'WORKSPACE_UNAVAILABLE', 'WORKSPACE_PATH_INVALID'])
      expect(errorAdvice({ code, message: 'x' }), code).to.equal(ADVICE.workspace);
  });

  it("a Deno module that was not prepared, or failed to set up: the site's owner", () => {
    const unprepared = { code: 'INVALID_INPUT', message: 'Deno module "sprites" was not prepared: attach its sources' };
    expect(errorAdvice(unprepared)).to.equal(ADVICE.denoModule);
    expect(errorAdvice({ code: 'DENO_MODULE_SETUP_FAILED', message: 'x' })).to.equal(ADVICE.denoModule);
  });

  it('other failures keep their own message', () => {
    expect(
      errorAdvice({ code: 'SDK_PROTOCOL_ERROR', message: 'create_session response had an invalid shape' }),
    ).to.equal('');
    expect(errorAdvice({ code: 'INVALID_INPUT', message: 'effort requires model' })).to.equal('');
  });
});
