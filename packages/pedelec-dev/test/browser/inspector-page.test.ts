// The inspector page itself, in Chromium: the operator's form for calling a page's tool. Its fields and
// its "Arguments as JSON" box follow each other both ways, and the call sends what the box says.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { skipBrowser } from '../../../../scripts/browsers.mjs';
import { launchBrowser } from '../../../../test/support/browser.mjs';
import type { ToolManifest } from '../../src/agents/types.js';
import { BridgeClient, createSession, skills, startCore } from '../helpers.js';

const NOTE: ToolManifest = {
  name: 'add_note',
  description: 'Add a note.',
  argsSchema: {
    type: 'object',
    properties: {
      text: { type: 'string' },
      pinned: { type: 'boolean' },
      color: { type: 'string', enum: ['red', 'green'] },
      tags: { type: 'array', items: { type: 'string' } },
    },
    required: ['text'],
  },
};

test(
  'the operator form: a hand edit of the JSON box sets the fields, a field edit keeps the rest of the box',
  { skip: skipBrowser('chromium'), timeout: 60_000 },
  async (t) => {
    const core = await startCore(t, { agent: 'operator' });
    const page = await BridgeClient.open(t, core);
    const sessionId = await createSession(page, { provider: 'operator', skills: skills(NOTE) });
    await page.ok('send_text', { sessionId, text: 'please add a note' });

    // Closed here rather than through launchBrowser's `t` option, which the types inferred from the
    // JavaScript helper do not know of.
    const browser = await launchBrowser('chromium');
    t.after(() => browser.close());
    const inspector = await browser.newPage();
    await inspector.goto(core.inspectorUrl);
    await inspector.waitForSelector('#operator-turn:not([hidden]) #call-tool option[value="add_note"]');
    await inspector.select('#call-tool', 'add_note');

    // Each field is a label: its name, then its input or select.
    const fieldsOf = () =>
      inspector.$$eval('#call-fields label', (labels) =>
        Object.fromEntries(
          labels.map((label) => [
            label.firstChild!.textContent!.trim(),
            (label.lastChild as HTMLInputElement | HTMLSelectElement).value,
          ]),
        ),
      );
    const box = async () =>
      JSON.parse(await inspector.$eval('#call-args', (area) => (area as HTMLTextAreaElement).value));
    /** Types `json` into the box as a person does: the whole text replaced, one input event per key. */
    const typeIntoBox = async (json: string) => {
      await inspector.$eval('#call-args', (area) => {
        (area as HTMLTextAreaElement).focus();
        (area as HTMLTextAreaElement).select();
      });
      await inspector.keyboard.press('Backspace');
      await inspector.type('#call-args', json);
    };

    // The JSON box, edited by hand: each field takes its property; a field the box leaves out is cleared.
    await typeIntoBox('{"text": "milk", "pinned": true, "color": "green", "tags": ["shop"]}');
    assert.deepEqual(await fieldsOf(), { 'text *': 'milk', pinned: 'true', color: '1', tags: '["shop"]' });
    await typeIntoBox('{"text": "bread", "extra": 1}');
    assert.deepEqual(await fieldsOf(), { 'text *': 'bread', pinned: '', color: '', tags: '' });

    // A field, edited: its property in the box follows, and what else the box holds stays.
    await inspector.select('#call-fields select', 'false');
    assert.deepEqual(await box(), { text: 'bread', extra: 1, pinned: false });

    // The call sends what the box says.
    const from = page.mark();
    await inspector.click('#call-form button');
    const call = await page.until((m) => m.type === 'tool_call', { from });
    assert.equal(call.tool, 'add_note');
    assert.deepEqual(call.args, { text: 'bread', extra: 1, pinned: false });
  },
);
