/**
 * `<pedelec-tool form="id">`'s args schema (spec every-agent.md §3), synthesized from the form's named
 * controls unless the tool declares one; read again when the form changes; a form that is not there
 * makes the declaration invalid until it is. In every browser (the form binding needs no WebMCP).
 */
import { expect } from '@open-wc/testing';
import type { PedelecErrorEvent, PedelecSessionElement, PedelecToolElement } from '../../../src/index.js';
import { mountHost, record } from '../helpers.js';
import { until } from '../../support/waits.js';
import { bound, formHooks, page, schemaOf } from './harness.js';

const BOOKING = `
  <form id="booking">
    <label for="name">Your name</label>
    <input id="name" name="name" required minlength="2" maxlength="40" pattern="[A-Za-z ]+">
    <label>Email <input name="email" type="email"></label>
    <input name="guests" type="number" min="1" max="12" toolparamdescription="How many people.">
    <input name="budget" type="number" step="0.5" min="0">
    <input name="loudness" type="range">
    <input name="when" type="date" required>
    <label>Room
      <select name="room"><option value="terrace">Terrace</option><option value="hall">Main hall</option></select>
    </label>
    <select name="extras" multiple><option>wine</option><option>cake</option><option>wine</option></select>
    <label><input type="checkbox" name="vip"> A VIP</label>
    <fieldset><legend>Seat</legend>
      <label><input type="radio" name="seat" value="window" required> Window</label>
      <label><input type="radio" name="seat" value="aisle"> Aisle</label>
    </fieldset>
    <fieldset><legend>Allergies</legend>
      <input type="checkbox" name="allergy" value="nuts"><input type="checkbox" name="allergy" value="gluten">
    </fieldset>
    <textarea name="notes" maxlength="500"></textarea>
    <input type="hidden" name="token" value="t">
    <input type="file" name="menu">
    <input name="off" disabled>
    <input placeholder="no name">
    <button name="go">Book</button>
  </form>
  <pedelec-session provider="codex" model="m">
    <pedelec-tool name="book" description="Book a table." form="booking"></pedelec-tool>
  </pedelec-session>`;

describe('<pedelec-tool form>: the schema', () => {
  formHooks();

  it("is synthesized from the form's named controls", async () => {
    const { session } = await page(BOOKING);
    const schema = await bound(session, 'book', 'name');
    expect(schema).to.deep.equal({
      type: 'object',
      properties: {
        name: { type: 'string', pattern: '^(?:[A-Za-z ]+)$', minLength: 2, maxLength: 40, description: 'Your name' },
        email: { type: 'string', description: 'Email' },
        guests: { type: 'integer', minimum: 1, maximum: 12, description: 'How many people.' },
        budget: { type: 'number', minimum: 0 },
        loudness: { type: 'integer', minimum: 0, maximum: 100 },
        when: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' },
        room: { type: 'string', enum: ['terrace', 'hall'], description: 'Room' },
        extras: { type: 'array', items: { type: 'string', enum: ['wine', 'cake'] }, uniqueItems: true },
        vip: { type: 'boolean', description: 'A VIP' },
        seat: { type: 'string', enum: ['window', 'aisle'], description: 'Seat' },
        allergy: {
          type: 'array',
          items: { type: 'string', enum: ['nuts', 'gluten'] },
          uniqueItems: true,
          description: 'Allergies',
        },
        notes: { type: 'string', maxLength: 500 },
      },
      required: ['name', 'when', 'seat'],
    });
  });

  it('a schema the tool declares itself wins: attribute, <pedelec-arg>, argsSchema', async () => {
    const { session, host } = await page(`
      <form id="booking"><input name="name"></form>
      <pedelec-session>
        <pedelec-tool name="by_attribute" description="d" form="booking"
          schema='{"type":"object","properties":{"who":{"type":"string"}}}'></pedelec-tool>
        <pedelec-tool name="by_args" description="d" form="booking">
          <pedelec-arg name="who" type="string"></pedelec-arg>
        </pedelec-tool>
        <pedelec-tool name="by_property" description="d" form="booking"></pedelec-tool>
        <pedelec-tool name="synthesized" description="d" form="booking"></pedelec-tool>
      </pedelec-session>`);
    (host.querySelector('[name=by_property]') as any).argsSchema = {
      type: 'object',
      properties: { who: { type: 'string' } },
    };
    await bound(session, 'synthesized', 'name');
    for (const name of ['by_attribute', 'by_args', 'by_property'])
      expect(schemaOf(session, name), name).to.deep.equal({ type: 'object', properties: { who: { type: 'string' } } });
  });

  it("follows the form: a control added, renamed or made required changes the tool's schema", async () => {
    const { session, form } = await page(BOOKING);
    await bound(session, 'book', 'name');
    form.insertAdjacentHTML('beforeend', '<input name="phone" type="tel">');
    await bound(session, 'book', 'phone');
    form.querySelector('[name=notes]')!.setAttribute('name', 'remarks');
    await bound(session, 'book', 'remarks');
    expect(schemaOf(session, 'book').properties.notes).to.equal(undefined);
    form.querySelector('[name=vip]')!.setAttribute('required', '');
    await until(() => schemaOf(session, 'book').required.includes('vip'), 'vip to be required');
  });

  it('an id that names two elements (markup injected before the form) makes the tool invalid', async () => {
    const host = await mountHost();
    host.innerHTML = `<div id="booking"></div>
      <form id="booking"><input name="name"></form>
      <pedelec-session><pedelec-tool name="book" description="Book." form="booking"></pedelec-tool></pedelec-session>`;
    const session = host.querySelector('pedelec-session') as PedelecSessionElement;
    const tool = host.querySelector('pedelec-tool') as PedelecToolElement;
    await until(() => tool.invalidReason, 'the tool to be invalid');
    expect(tool.invalidReason).to.equal('tool "book": form: 2 elements have the id "booking"; it must name one form');
    expect(session.manifest?.tools ?? []).to.deep.equal([]);
  });

  it('a form that is not there leaves the tool out, invalid, until it is', async () => {
    const host = await mountHost();
    const errors = record<PedelecErrorEvent>(host, 'pedelec-error');
    host.innerHTML = `
      <pedelec-session>
        <pedelec-tool name="later" description="Its form comes later." form="later-form"></pedelec-tool>
      </pedelec-session>`;
    const session = host.querySelector('pedelec-session') as PedelecSessionElement;
    const tool = host.querySelector('pedelec-tool') as PedelecToolElement;
    await until(() => tool.invalidReason, 'the tool to be invalid');
    expect(tool.invalidReason).to.match(/form: no <form id="later-form">/);
    expect(session.manifest?.tools ?? []).to.deep.equal([]);
    expect(errors.map((e) => e.detail.error.code)).to.deep.equal(['INVALID_INPUT']);
    host.insertAdjacentHTML('beforeend', '<form id="later-form"><input name="q" required></form>');
    await bound(session, 'later', 'q');
    expect(tool.invalidReason).to.equal(null);
  });
});
