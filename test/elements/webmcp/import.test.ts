/**
 * `<pedelec-session webmcp="import">` (spec every-agent.md §3, Chromium): the page's other WebMCP
 * tools — `<form toolname>` forms the browser registered, other scripts' tools — offered to the
 * Pedelec agent: which ones, read again on `toolchange`, their schemas normalized into the args
 * subset, and calls through `executeTool` on the session's one path.
 */
import { expect } from '@open-wc/testing';
import type { PedelecSessionElement, PedelecToolsChangedEvent, PedelecWarningEvent } from '../../../src/index.js';
import {
  beginTurn,
  callTool,
  endSession,
  finishTurn,
  installFakeChrome,
  manifestTool,
  mountHost,
  record,
  startSession,
  toolNames,
  uninstallFakeChrome,
} from '../helpers.js';
import { until } from '../../support/waits.js';
import { chromium, context, webmcpHooks } from './harness.js';

/** Registers a script tool with the page's model context until the test ends. */
const scripts: AbortController[] = [];
async function scriptTool(tool: Record<string, unknown>): Promise<void> {
  const controller = new AbortController();
  scripts.push(controller);
  await context().registerTool({ description: `The ${tool.name} tool.`, ...tool }, { signal: controller.signal });
}

const BOOKING = `
  <form id="booking" toolname="book_table" tooldescription="Book a table." toolautosubmit>
    <label for="who">Your name</label><input id="who" name="name" required pattern="[A-Za-z ]+">
    <input name="guests" type="number" min="1" max="12">
    <select name="room"><option value="terrace">Terrace</option><option value="hall">Main hall</option></select>
    <input name="when" type="date">
    <button>Book</button>
  </form>`;

/** Mounts `markup` (listening for warnings first) and returns its first session. */
async function mounted(
  markup: string,
): Promise<{ session: PedelecSessionElement; host: HTMLElement; warnings: PedelecWarningEvent[] }> {
  const host = await mountHost();
  const warnings = record<PedelecWarningEvent>(host, 'pedelec-warning');
  host.innerHTML = markup;
  return { session: host.querySelector('pedelec-session') as PedelecSessionElement, host, warnings };
}

/** Waits (a task at a time, at most 3 s) until the browser lists `name` (for any window); all it lists then. */
async function browserLists(name: string): Promise<string[]> {
  let all: string[] = [];
  return until(
    async () => {
      all = ((await context().getTools()) as { name: string }[]).map((t) => t.name);
      return all.includes(name) ? all.sort() : undefined;
    },
    () => `the browser to list ${name}: ${all.join(', ')}`,
    3000,
  );
}

const imported = (session: PedelecSessionElement, ...names: string[]) =>
  until(() => names.every((name) => toolNames(session).includes(name)), `the imported tools ${names.join(', ')}`);

describe('<pedelec-session webmcp="import">', () => {
  // Before webmcpHooks' check that nothing is left registered.
  afterEach(() => scripts.splice(0).forEach((controller) => controller.abort()));
  webmcpHooks();
  before(function () {
    if (!chromium()) this.skip();
  });

  it("offers the page's forms and script tools, with their schemas in the args subset", async () => {
    await scriptTool({
      name: 'weather',
      inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      execute: ({ city }: { city: string }) => ({ city, sky: 'clear' }),
    });
    const { session, warnings } = await mounted(`${BOOKING}<pedelec-session webmcp="import"></pedelec-session>`);
    await imported(session, 'book_table', 'weather');
    expect(manifestTool(session, 'weather')).to.deep.equal({
      name: 'weather',
      description: 'The weather tool.',
      argsSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    });
    const booking = manifestTool(session, 'book_table');
    expect(booking.description).to.equal('Book a table.');
    expect(booking.timeoutMs).to.equal(undefined); // toolautosubmit: no user to wait for
    const { properties } = booking.argsSchema as any;
    expect(properties.guests).to.deep.equal({ type: 'integer', minimum: 1, maximum: 12 });
    expect(properties.room).to.deep.equal({
      type: 'string',
      enum: ['terrace', 'hall'],
      description: 'Values: "terrace" (Terrace), "hall" (Main hall).',
    });
    expect(properties.when.pattern).to.equal('^\\d{4}-\\d{2}-\\d{2}$');
    expect(properties.when.format).to.equal(undefined);
    expect(properties.name).to.include({ type: 'string', description: 'Your name' });
    // Nothing here is outside the subset: no warning.
    expect(warnings.map((w) => w.detail.warning.code)).to.deep.equal([]);
    // Imported tools are not registered with WebMCP again.
    expect(session.webmcpTools).to.deep.equal([]);
  });

  it("leaves out frames' tools, what sessions of the page registered, and forms a <pedelec-tool form> binds", async () => {
    const { host } = await mounted(`${BOOKING}
      <form id="feedback" toolname="send_feedback" tooldescription="Send feedback." toolautosubmit>
        <input name="text"><button>Send</button>
      </form>
      <iframe srcdoc='<form toolname="framed" tooldescription="In a frame."><input name="q"><button>Go</button></form>'></iframe>
      <pedelec-session webmcp="expose" id="exposer">
        <pedelec-tool name="exposed" description="Ours, exposed."></pedelec-tool>
      </pedelec-session>
      <pedelec-session webmcp="import" id="importer">
        <pedelec-tool name="feedback" description="Feedback, bound." form="feedback"></pedelec-tool>
      </pedelec-session>`);
    const importer = host.querySelector('#importer') as PedelecSessionElement;
    const exposer = host.querySelector('#exposer') as PedelecSessionElement;
    await imported(importer, 'book_table');
    await until(() => exposer.webmcpTools.length === 1, 'the exposed tool');
    // The browser lists them all (the frame's form too, once the frame has loaded); the session takes none of them.
    expect(await browserLists('framed')).to.deep.equal(['book_table', 'exposed', 'framed', 'send_feedback']);
    await scriptTool({ name: 'later', execute: () => 1 }); // a toolchange: read again
    await imported(importer, 'later');
    expect(toolNames(importer).sort()).to.deep.equal(['book_table', 'feedback', 'later']);
  });

  it('a declared tool of the same name wins, with one WEBMCP_NAME_TAKEN warning', async () => {
    await scriptTool({ name: 'weather', execute: () => 'theirs' });
    const { session, warnings } = await mounted(`
      <pedelec-session webmcp="import"><pedelec-tool name="weather" description="Ours."></pedelec-tool></pedelec-session>`);
    await until(() => warnings.length > 0, 'the warning');
    expect(manifestTool(session, 'weather').description).to.equal('Ours.');
    expect(warnings.map((w) => [w.detail.warning.code, (w.detail.warning.details as any).tool])).to.deep.equal([
      ['WEBMCP_NAME_TAKEN', 'weather'],
    ]);
  });

  it('follows toolchange: a form added or removed, a script tool gone', async () => {
    await scriptTool({ name: 'weather', execute: () => 1 });
    const { session, host } = await mounted('<pedelec-session webmcp="import"></pedelec-session>');
    await imported(session, 'weather');
    host.insertAdjacentHTML('afterbegin', BOOKING);
    await imported(session, 'book_table');
    host.querySelector('form')!.remove();
    await until(() => !toolNames(session).includes('book_table'), 'the removed form to go');
    scripts.splice(0).forEach((controller) => controller.abort());
    await until(() => toolNames(session).length === 0, 'the script tool to go');
  });

  it("calls go through executeTool: JSON results parsed, text kept, the browser's errors as TOOL_HANDLER_ERROR", async () => {
    await scriptTool({ name: 'weather', execute: ({ city }: { city: string }) => ({ city, sky: 'clear' }) });
    await scriptTool({ name: 'motto', execute: () => 'carpe diem' });
    await scriptTool({
      name: 'broken',
      execute: () => {
        throw new Error('lost on the way');
      },
    });
    const { session, host } = await mounted(`${BOOKING}<pedelec-session webmcp="import"></pedelec-session>`);
    await imported(session, 'weather', 'motto', 'broken', 'book_table');
    const form = host.querySelector('form')!;
    form.addEventListener('submit', (e: any) => {
      e.preventDefault();
      e.respondWith({ booked: new FormData(form).get('name') });
    });
    expect(await session.invoke('weather', { city: 'Oslo' })).to.deep.equal({
      ok: true,
      result: { city: 'Oslo', sky: 'clear' },
    });
    expect(await session.invoke('motto', {})).to.deep.equal({ ok: true, result: 'carpe diem' });
    expect(await session.invoke('book_table', { name: 'Ann', guests: 2 })).to.deep.equal({
      ok: true,
      result: { booked: 'Ann' },
    });
    const thrown = await session.invoke('broken', {});
    expect(thrown.ok).to.equal(false);
    expect((thrown as any).error.code).to.equal('TOOL_HANDLER_ERROR');
    // The browser checks the form: its words reach the agent (the pattern matches the whole value).
    const refused = await session.invoke('book_table', { name: 'Ann 2' });
    expect((refused as any).error.code).to.equal('TOOL_HANDLER_ERROR');
    expect((refused as any).error.message).to.match(/^Form validation failed: name: /);
    // The kit validates first, against the normalized schema: the browser never sees these.
    const invalid = await session.invoke('book_table', { name: 'Ann', guests: 2.5, room: 'cellar' });
    expect((invalid as any).error.code).to.equal('TOOL_ARGS_INVALID');
  });

  it("start() sends the page's tools read first; later ones make the session stale; the agent calls them", async () => {
    const fake = installFakeChrome();
    try {
      await scriptTool({ name: 'weather', execute: ({ city }: { city: string }) => ({ city, sky: 'grey' }) });
      const { session } = await mounted(
        `${BOOKING}<pedelec-session webmcp="import" provider="codex" model="m"></pedelec-session>`,
      );
      const changes = record<PedelecToolsChangedEvent>(session, 'pedelec-tools-changed');
      // At once: the WebMCP chunk and the first reading of the page's tools are still on their way.
      const create = await startSession(session, fake);
      expect(create.input.skills.tools.map((t: { name: string }) => t.name).sort()).to.deep.equal([
        'book_table',
        'weather',
      ]);
      const { turn } = await beginTurn(session, fake);
      const submitted = await callTool(fake, 'weather', { city: 'Bergen' });
      expect(submitted.result).to.deep.equal({ city: 'Bergen', sky: 'grey' });
      await finishTurn(turn, fake);
      await scriptTool({ name: 'later', execute: () => 1 });
      await until(() => changes.length > 0, 'pedelec-tools-changed');
      expect(changes[0]!.detail.added).to.deep.equal(['later']);
      expect(session.toolsStale).to.equal(true);
      await endSession(session, fake);
    } finally {
      uninstallFakeChrome();
    }
  });

  it('start() sends what the newest reading lists: one a toolchange replaced on its way is not the last', async () => {
    const fake = installFakeChrome();
    const model = context() as unknown as EventTarget & { getTools(): Promise<unknown> };
    const { getTools } = model;
    let calls = 0;
    try {
      await scriptTool({ name: 'weather', execute: () => 1 });
      // The first reading answers at once, but a toolchange came while it was on its way; the reading
      // that follows answers 50 ms later. A start that waited for the first only would send no tools.
      model.getTools = function () {
        const listing = getTools.call(this);
        if (++calls === 1) this.dispatchEvent(new Event('toolchange'));
        return calls === 2 ? new Promise((resolve) => setTimeout(() => resolve(listing), 50)) : listing;
      };
      const { session } = await mounted(
        `${BOOKING}<pedelec-session webmcp="import" provider="codex" model="m"></pedelec-session>`,
      );
      const create = await startSession(session, fake);
      expect(calls).to.be.at.least(2);
      expect(create.input.skills?.tools.map((t: { name: string }) => t.name).sort()).to.deep.equal([
        'book_table',
        'weather',
      ]);
      await endSession(session, fake);
    } finally {
      delete (model as { getTools?: unknown }).getTools;
      uninstallFakeChrome();
    }
  });

  it('an imported form that navigates away (its default left alone) answers FORM_NOT_ANSWERED, not a result', async () => {
    const { session, host } = await mounted(`
      <form id="leaving" toolname="leave_form" tooldescription="Leaves." toolautosubmit action="/webmcp-sink" target="sink">
        <input name="q"><button>Go</button>
      </form>
      <iframe name="sink" title="Where the submit lands"></iframe>
      <pedelec-session webmcp="import"></pedelec-session>`);
    await imported(session, 'leave_form');
    const landed = new Promise((resolve) =>
      host.querySelector('iframe')!.addEventListener('load', resolve, { once: true }),
    );
    const answer = await session.invoke('leave_form', { q: 'x' });
    await landed;
    expect(answer.ok).to.equal(false);
    expect((answer as any).error.code).to.equal('FORM_NOT_ANSWERED');
    expect((answer as any).error.message).to.match(/^leave_form: the form was submitted without preventDefault\(\)/);
  });

  it('a form that waits for the user gets 5 minutes, and FORM_AWAITING_USER 1 s before they are up', async () => {
    const { session, host } = await mounted(`
      <form toolname="ask" tooldescription="Ask a question."><input name="q" required><button>Ask</button></form>
      <pedelec-session webmcp="import"></pedelec-session>`);
    await imported(session, 'ask');
    expect(manifestTool(session, 'ask').timeoutMs).to.equal(300_000);
    // 298 s pass at once, as the call starts: 1 s later the kit answers (Core would say TOOL_TIMEOUT at 300 s).
    const now = Date.now;
    session.addEventListener('pedelec-tool-start', () => (Date.now = () => now.call(Date) + 298_000), { once: true });
    try {
      const started = now.call(Date);
      const answer = await session.invoke('ask', { q: 'Why?' });
      expect((answer as any).error.code).to.equal('FORM_AWAITING_USER');
      expect((answer as any).error.message).to.equal('filled; waiting for the user to submit');
      expect(now.call(Date) - started).to.be.within(500, 1800);
    } finally {
      Date.now = now;
    }
    // Filled, for the user to submit.
    expect((host.querySelector('[name=q]') as HTMLInputElement).value).to.equal('Why?');
  });

  it('schemas outside the subset: the tool is offered, unvalidated there, with one warning', async () => {
    await scriptTool({
      name: 'either',
      inputSchema: {
        type: 'object',
        properties: { id: { anyOf: [{ type: 'string' }, { type: 'integer' }] }, n: { type: 'integer' } },
      },
      execute: (args: unknown) => args,
    });
    const { session, warnings } = await mounted('<pedelec-session webmcp="import"></pedelec-session>');
    await imported(session, 'either');
    await until(() => warnings.length > 0, 'the warning');
    expect(warnings.map((w) => w.detail.warning.code)).to.deep.equal(['SCHEMA_NOT_VALIDATED']);
    expect(await session.invoke('either', { id: [1] })).to.deep.equal({ ok: true, result: { id: [1] } });
    expect((await session.invoke('either', { n: 'x' })).ok).to.equal(false);
  });
});

describe('<pedelec-session webmcp="import"> where the browser lacks what it needs', () => {
  webmcpHooks();
  let restore = () => {};
  afterEach(() => restore());

  it('one WEBMCP_UNAVAILABLE, nothing imported (Firefox without executeTool; Chromium made so)', async () => {
    const mc = context() as any;
    if (chromium()) {
      mc.executeTool = undefined; // an own property hides the browser's
      restore = () => delete mc.executeTool;
    }
    const { session, warnings } = await mounted(`${BOOKING}
      <pedelec-session webmcp="import"><pedelec-tool name="own" description="Declared."></pedelec-tool></pedelec-session>`);
    await until(() => warnings.length > 0, 'the warning');
    session.setAttribute('provider', 'codex'); // a change: the import is looked at again, and says nothing more
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(warnings.map((w) => w.detail.warning.code)).to.deep.equal(['WEBMCP_UNAVAILABLE']);
    expect(toolNames(session)).to.deep.equal(['own']);
  });
});
