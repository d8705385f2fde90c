/**
 * `<pedelec-session>` and `<pedelec-chat>` with today's extension (docs/design/current-pedelec.md): the new
 * events (`pedelec-chat-message`, `pedelec-usage`, `pedelec-artifact`), a reply that arrives only as a
 * whole `chat_message`, and a `persist`ed session whose page reloads while Core waits for a tool call.
 * Driven through the fake Chrome port, answering as the current Core does.
 */
import { expect, oneEvent } from '@open-wc/testing';
import '../../../src/define.js';
import { Pedelec } from '../../../src/core/index.js';
import type {
  PedelecArtifactEvent,
  PedelecChatElement,
  PedelecChatMessageEvent,
  PedelecSessionElement,
  PedelecToolElement,
  PedelecToolResultEvent,
  PedelecUsageEvent,
} from '../../../src/index.js';
import { approvedStatus, installFakeChrome, mount, nextTask, uninstallFakeChrome, type FakePort } from '../helpers.js';

let fake: FakePort;

/** A session event from the fake Core, on the channel of the page's latest client. */
function coreEvent(sessionId: string, type: string, fields: Record<string, unknown> = {}): void {
  fake.emit({ channelId: fake.last().channelId, type, sessionId, ...fields });
}

/** Starts `el` as today's Core answers: created, then the session's snapshot. */
async function startCurrent(el: PedelecSessionElement, sessionId = 's1'): Promise<void> {
  const started = el.start();
  await fake.answer('get_approval_status', approvedStatus());
  await fake.answer('create_session', { sessionId });
  await started;
  coreEvent(sessionId, 'session_snapshot', { seq: 1, snapshot: { status: 'idle', latestSeq: 0 } });
}

/** Sends `text` and answers its request; returns the turn and its operationId. */
async function turn(el: PedelecSessionElement, text: string): Promise<{ done: Promise<void>; operationId: string }> {
  const done = el.sendText(text);
  const req = await fake.answer('send_text');
  return { done, operationId: req.operationId };
}

function finish(sessionId: string, operationId: string, seq: number): void {
  coreEvent(sessionId, 'status_changed', { seq, status: 'idle', operationId });
  coreEvent(sessionId, 'operation_completed', { seq: seq + 1, operationId, operationKind: 'user', success: true });
}

describe('<pedelec-session> with today’s Pedelec', () => {
  beforeEach(() => {
    fake = installFakeChrome();
    sessionStorage.clear();
  });
  afterEach(async () => {
    for (const el of Array.from(document.querySelectorAll('pedelec-session'))) el.remove();
    await nextTask();
    fake.disconnect();
    uninstallFakeChrome();
    sessionStorage.clear();
  });

  it('with a workspace property, creates its sessions in that workspace (input.workspaceId) and shares the object', async () => {
    const client = new Pedelec();
    const opening = client.openWorkspace('/home/ada/notes');
    await fake.answer('open_workspace', { workspace: { workspaceId: 'ws_notes', path: '/home/ada/notes' } });
    const workspace = await opening;
    const host = await mount('<pedelec-session provider="codex"></pedelec-session>');
    const el = host.querySelector<PedelecSessionElement>('pedelec-session')!;
    el.workspace = workspace;
    const started = el.start();
    await fake.answer('get_approval_status', approvedStatus());
    const request = await fake.answer('create_session', {
      sessionId: 's1',
      workspace: { workspaceId: 'ws_notes', path: '/home/ada/notes' },
    });
    await started;
    expect(request.input.workspaceId).to.equal('ws_notes');
    expect(el.session!.workspace).to.equal(workspace);
    client.disconnect();
  });

  it('fires pedelec-chat-message with each whole assistant message', async () => {
    const host = await mount('<pedelec-session provider="codex" model="m"></pedelec-session>');
    const el = host.querySelector<PedelecSessionElement>('pedelec-session')!;
    await startCurrent(el);
    const { done, operationId } = await turn(el, 'hi');
    const message = oneEvent(el, 'pedelec-chat-message') as Promise<PedelecChatMessageEvent>;
    coreEvent('s1', 'chat_message', { seq: 2, operationId, text: 'Hello there.' });
    const event = await message;
    expect(event.detail.text).to.equal('Hello there.');
    expect(event.detail.context).to.include({ type: 'chat_message', sessionId: 's1', source: 'core' });
    finish('s1', operationId, 3);
    await done;
  });

  it('fires pedelec-usage and keeps session.usage', async () => {
    const host = await mount('<pedelec-session provider="codex" model="m"></pedelec-session>');
    const el = host.querySelector<PedelecSessionElement>('pedelec-session')!;
    await startCurrent(el);
    const usage = oneEvent(el, 'pedelec-usage') as Promise<PedelecUsageEvent>;
    coreEvent('s1', 'usage_updated', { seq: 2, totalTokens: 321 });
    expect((await usage).detail.usage).to.deep.equal({ totalTokens: 321 });
    expect(el.session!.usage).to.deep.equal({ totalTokens: 321 });
  });

  it('fires pedelec-artifact with the provider’s file, during a turn', async () => {
    const host = await mount('<pedelec-session provider="codex" model="m"></pedelec-session>');
    const el = host.querySelector<PedelecSessionElement>('pedelec-session')!;
    await startCurrent(el);
    const artifact = {
      id: 'a1',
      provider: 'codex',
      path: '/artifacts/a1-report.md',
      name: 'report.md',
      mimeType: 'text/markdown',
      sizeBytes: 5,
      kind: 'file',
      source: 'provider_artifact',
    };
    const { done, operationId } = await turn(el, 'write it');
    const fired = oneEvent(el, 'pedelec-artifact') as Promise<PedelecArtifactEvent>;
    coreEvent('s1', 'provider_artifact', { seq: 2, operationId, artifact });
    const event = await fired;
    expect(event.detail.artifact).to.deep.equal(artifact);
    expect(event.detail.context).to.include({ turnId: operationId, turnKind: 'user', source: 'core' });
    finish('s1', operationId, 3);
    await done;
  });

  it('a chat shows the whole reply when the provider sends only chat_message (no fragments)', async () => {
    const host = await mount('<pedelec-session provider="codex" model="m"></pedelec-session>');
    const el = host.querySelector<PedelecSessionElement>('pedelec-session')!;
    await startCurrent(el);
    // The chat joins once the session runs (its own availability check then asks for nothing new).
    const chat = document.createElement('pedelec-chat') as PedelecChatElement;
    el.append(chat);
    await chat.updateComplete;
    const { done, operationId } = await turn(el, 'hi');
    coreEvent('s1', 'chat_message', { seq: 2, operationId, text: 'The whole reply, at once.' });
    finish('s1', operationId, 3);
    await done;
    await chat.updateComplete;
    await nextTask();
    expect(chat.shadowRoot!.textContent).to.contain('The whole reply, at once.');
  });

  it('with persist, a reload while Core waits for a tool call answers that call from the new page', async () => {
    const markup = `
      <pedelec-session id="reload" provider="codex" model="m" persist>
        <pedelec-tool name="update_counter" description="Change the counter.">
          <pedelec-arg name="delta" type="integer" required></pedelec-arg>
        </pedelec-tool>
      </pedelec-session>`;
    const first = await mount(markup);
    await startCurrent(first.querySelector<PedelecSessionElement>('pedelec-session')!, 's-persist');
    // The page goes away mid-turn (the tool_call was never answered): the record stays.
    first.remove();
    await nextTask();
    expect(fake.posted.filter((m) => m.type === 'end_session')).to.have.length(0);

    const second = await mount(markup);
    const el = second.querySelector<PedelecSessionElement>('pedelec-session')!;
    const tool = second.querySelector<PedelecToolElement>('pedelec-tool')!;
    tool.handler = (args) => ({ value: (args as { delta: number }).delta });
    const ready = el.start();
    await fake.answer('get_approval_status', approvedStatus());
    await fake.answer('resume_session', { sessionId: 's-persist' });
    await ready;
    const result = oneEvent(el, 'pedelec-tool-result') as Promise<PedelecToolResultEvent>;
    coreEvent('s-persist', 'session_snapshot', {
      seq: 9,
      snapshot: {
        status: 'waiting_tool_result',
        latestSeq: 8,
        activeOperation: { operationId: 'op_old_page', operationKind: 'user' },
        pendingToolRequest: {
          toolRequestId: 'r-old',
          tool: 'update_counter',
          args: { delta: 3 },
          operationId: 'op_old_page',
        },
      },
    });
    expect((await result).detail).to.include({ tool: 'update_counter', ok: true });
    const submitted = await fake.request('submit_tool_result');
    expect(submitted).to.include({ sessionId: 's-persist', toolRequestId: 'r-old' });
    expect(submitted.result).to.deep.equal({ value: 3 });
  });
});
