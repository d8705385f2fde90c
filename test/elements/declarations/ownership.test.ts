/**
 * Which session a <pedelec-tool> belongs to (docs/design/elements.md "Ownership"): the nearest one, across
 * shadow roots, whatever is defined first; properties set before the upgrade; tools created by markup,
 * createElement or new; added, removed, detached and reattached; always in tree order.
 */
import { expect } from '@open-wc/testing';
import '../../../src/define.js';
import {
  type PedelecErrorEvent,
  PedelecSessionElement,
  PedelecToolElement,
  PedelecArgElement,
  PedelecGuidanceElement,
} from '../../../src/index.js';
import { sessionIn, toolIn, makeTool, defineShadowHost, declarationHooks } from './harness.js';
import { manifestTool, mount, mountHost, record, uniqueTag, toolNames } from '../helpers.js';
import { nextTask } from '../../support/waits.js';

describe('declarations', () => {
  declarationHooks();

  describe('ownership', () => {
    it('a tool belongs to its nearest session; nested sessions keep their own tools and guidance', async () => {
      const host = await mount(`
        <pedelec-session id="outer">
          <pedelec-guidance>Outer guidance.</pedelec-guidance>
          <pedelec-tool name="outer_first" description="d"></pedelec-tool>
          <pedelec-session id="inner">
            <pedelec-guidance>Inner guidance.</pedelec-guidance>
            <pedelec-tool name="inner_tool" description="d"></pedelec-tool>
          </pedelec-session>
          <pedelec-tool name="outer_last" description="d"></pedelec-tool>
        </pedelec-session>`);
      const outer = sessionIn(host, '#outer');
      const inner = sessionIn(host, '#inner');
      expect(toolNames(outer)).to.deep.equal(['outer_first', 'outer_last']);
      expect(toolNames(inner)).to.deep.equal(['inner_tool']);
      expect(outer.manifest?.guidance).to.equal('Outer guidance.');
      expect(inner.manifest?.guidance).to.equal('Inner guidance.');

      // A tool added to the inner session later still goes to the inner one only.
      inner.append(makeTool('inner_late'));
      expect(toolNames(outer)).to.deep.equal(['outer_first', 'outer_last']);
      expect(toolNames(inner)).to.deep.equal(['inner_tool', 'inner_late']);
    });

    it('a tool inside the shadow root of a component in a session belongs to that session, in tree order', async () => {
      const tag = defineShadowHost(`<pedelec-tool name="in_shadow" description="From a shadow root."></pedelec-tool>`);
      const host = await mount(`
        <pedelec-session>
          <pedelec-tool name="before" description="d"></pedelec-tool>
          <${tag}></${tag}>
          <pedelec-tool name="after" description="d"></pedelec-tool>
        </pedelec-session>`);
      const session = sessionIn(host);
      expect(toolNames(session)).to.deep.equal(['before', 'in_shadow', 'after']);
      const shadowTool = host.querySelector(tag)!.shadowRoot!.querySelector('pedelec-tool') as PedelecToolElement;
      shadowTool.handler = () => ({ from: 'shadow' });
      expect(await session.invoke('in_shadow', {})).to.deep.equal({ ok: true, result: { from: 'shadow' } });
    });

    it('the shadow-root component inside a nested session belongs to the inner session only', async () => {
      const tag = defineShadowHost(`<pedelec-tool name="in_shadow" description="d"></pedelec-tool>`);
      const host = await mount(`
        <pedelec-session id="outer">
          <pedelec-session id="inner"><${tag}></${tag}></pedelec-session>
        </pedelec-session>`);
      expect(toolNames(sessionIn(host, '#inner'))).to.deep.equal(['in_shadow']);
      expect(toolNames(sessionIn(host, '#outer'))).to.deep.equal([]);
    });

    it('a session defined after its tools takes them (and takes them from an outer session)', async () => {
      const tag = uniqueTag('late-session');
      const host = await mount(`
        <pedelec-session id="outer">
          <pedelec-tool name="outer_tool" description="d"></pedelec-tool>
          <${tag}>
            <pedelec-tool name="late_a" description="d"></pedelec-tool>
            <pedelec-guidance>Late guidance.</pedelec-guidance>
            <pedelec-tool name="late_b" description="d"></pedelec-tool>
          </${tag}>
        </pedelec-session>`);
      await nextTask();
      const outer = sessionIn(host, '#outer');
      customElements.define(tag, class extends PedelecSessionElement {});
      const late = host.querySelector(tag) as PedelecSessionElement;
      expect(late).to.be.instanceOf(PedelecSessionElement);
      await late.updateComplete;
      expect(toolNames(late)).to.deep.equal(['late_a', 'late_b']);
      expect(late.manifest?.guidance).to.equal('Late guidance.');
      expect(toolNames(outer)).to.deep.equal(['outer_tool']);
      expect(outer.manifest?.guidance).to.equal('');
    });

    it('tools defined after their session join it (a PedelecToolElement subclass under a new tag)', async () => {
      const tag = uniqueTag('late-tool');
      const host = await mount(`
        <pedelec-session>
          <${tag} name="late" description="Defined late."><pedelec-arg name="n" type="integer" required></pedelec-arg></${tag}>
        </pedelec-session>`);
      const session = sessionIn(host);
      await nextTask();
      expect(toolNames(session)).to.deep.equal([]);
      customElements.define(tag, class extends PedelecToolElement {});
      await (host.querySelector(tag) as PedelecToolElement).updateComplete;
      expect(manifestTool(session, 'late')).to.deep.equal({
        name: 'late',
        description: 'Defined late.',
        argsSchema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
      });
    });

    it('tools of a PedelecToolElement subclass tag keep tree order among <pedelec-tool>s', async () => {
      const tag = uniqueTag('sub-tool');
      customElements.define(tag, class extends PedelecToolElement {});
      const host = await mountHost();
      const errors = record<PedelecErrorEvent>(host, 'pedelec-error');
      host.innerHTML = `
        <pedelec-session>
          <${tag} name="first" description="d"></${tag}>
          <pedelec-tool name="second" description="d"></pedelec-tool>
          <${tag} name="third" description="d"></${tag}>
          <${tag} id="dup" name="dup" description="The first dup in tree order."></${tag}>
          <pedelec-tool name="dup" description="The second dup."></pedelec-tool>
          <pedelec-tool name="fourth" description="d"></pedelec-tool>
        </pedelec-session>`;
      await nextTask();
      const session = sessionIn(host);
      expect(toolNames(session)).to.deep.equal(['first', 'second', 'third', 'fourth']);
      // A name declared twice is left out, and reported on the first of its tools in tree order.
      expect(errors.map((e) => e.element)).to.deep.equal([host.querySelector('#dup')]);
    });

    it('properties set before upgrade (handler, argsSchema, name, description) are kept', async () => {
      const tag = uniqueTag('late-tool');
      const host = await mount(`<pedelec-session></pedelec-session>`);
      const session = sessionIn(host);
      const schema = { type: 'object', properties: { n: { type: 'integer', minimum: 0 } }, required: ['n'] };
      const early = document.createElement(tag) as PedelecToolElement;
      early.name = 'early';
      early.description = 'Set before upgrade.';
      early.argsSchema = structuredClone(schema) as PedelecToolElement['argsSchema'];
      early.handler = (args) => ({ got: (args as { n: number }).n });
      early.setAttribute('timeout-ms', '1500');
      session.append(early);
      await nextTask();
      expect(toolNames(session)).to.deep.equal([]);

      customElements.define(tag, class extends PedelecToolElement {});
      expect(early).to.be.instanceOf(PedelecToolElement);
      await early.updateComplete;
      expect(manifestTool(session, 'early')).to.deep.equal({
        name: 'early',
        description: 'Set before upgrade.',
        timeoutMs: 1500,
        argsSchema: schema,
      });
      expect(await session.invoke('early', { n: 4 })).to.deep.equal({ ok: true, result: { got: 4 } });
    });

    it('created by markup, by document.createElement and by new', async () => {
      // Markup.
      const marked = await mount(
        `<pedelec-session><pedelec-tool name="by_markup" description="d"><pedelec-arg name="n" type="integer"></pedelec-arg></pedelec-tool></pedelec-session>`,
      );
      const expectedSchema = { type: 'object', properties: { n: { type: 'integer' } } };
      expect(sessionIn(marked).manifest?.tools).to.deep.equal([
        { name: 'by_markup', description: 'd', argsSchema: expectedSchema },
      ]);

      // document.createElement.
      const host = await mountHost();
      const created = document.createElement('pedelec-session');
      expect(created).to.be.instanceOf(PedelecSessionElement);
      const createdTool = document.createElement('pedelec-tool');
      expect(createdTool).to.be.instanceOf(PedelecToolElement);
      createdTool.setAttribute('name', 'by_create');
      createdTool.setAttribute('description', 'd');
      const createdArg = document.createElement('pedelec-arg');
      expect(createdArg).to.be.instanceOf(PedelecArgElement);
      createdArg.setAttribute('name', 'n');
      createdArg.setAttribute('type', 'integer');
      const createdGuidance = document.createElement('pedelec-guidance');
      expect(createdGuidance).to.be.instanceOf(PedelecGuidanceElement);
      createdGuidance.textContent = 'Created.';
      createdTool.append(createdArg);
      created.append(createdGuidance, createdTool);
      host.append(created);
      expect(created.manifest).to.deep.equal({
        guidance: 'Created.',
        tools: [{ name: 'by_create', description: 'd', argsSchema: expectedSchema }],
      });

      // new.
      const constructed = new PedelecSessionElement();
      const constructedTool = new PedelecToolElement();
      constructedTool.name = 'by_new';
      constructedTool.description = 'd';
      const constructedArg = new PedelecArgElement();
      constructedArg.name = 'n';
      constructedArg.type = 'integer';
      const constructedGuidance = new PedelecGuidanceElement();
      constructedGuidance.textContent = 'Constructed.';
      constructedTool.append(constructedArg);
      constructed.append(constructedGuidance, constructedTool);
      host.append(constructed);
      expect(constructed.manifest).to.deep.equal({
        guidance: 'Constructed.',
        tools: [{ name: 'by_new', description: 'd', argsSchema: expectedSchema }],
      });
      // Sibling sessions do not see each other's tools.
      expect(toolNames(created)).to.deep.equal(['by_create']);
    });

    it('tools added and removed later update the manifest', async () => {
      const host = await mount(
        `<pedelec-session><pedelec-tool name="a" description="d"></pedelec-tool></pedelec-session>`,
      );
      const session = sessionIn(host);
      expect(toolNames(session)).to.deep.equal(['a']);
      const b = makeTool('b');
      session.append(b);
      await nextTask();
      expect(toolNames(session)).to.deep.equal(['a', 'b']);
      toolIn(host, 'a').remove();
      await nextTask();
      expect(toolNames(session)).to.deep.equal(['b']);
      b.remove();
      await nextTask();
      expect(toolNames(session)).to.deep.equal([]);
    });

    it('a detached tool leaves the manifest and rejoins when reattached (also into another session)', async () => {
      const host = await mount(`
        <pedelec-session id="one">
          <pedelec-tool name="a" description="d"></pedelec-tool>
          <pedelec-tool name="moving" description="d"></pedelec-tool>
          <pedelec-tool name="c" description="d"></pedelec-tool>
        </pedelec-session>
        <pedelec-session id="two"></pedelec-session>`);
      const one = sessionIn(host, '#one');
      const two = sessionIn(host, '#two');
      const moving = toolIn(host, 'moving');
      moving.handler = () => 'still here';

      const next = moving.nextSibling;
      moving.remove();
      expect(toolNames(one)).to.deep.equal(['a', 'c']);
      expect((await one.invoke('moving', {})).ok).to.equal(false);

      one.insertBefore(moving, next);
      await moving.updateComplete;
      expect(toolNames(one)).to.deep.equal(['a', 'moving', 'c']);
      expect(await one.invoke('moving', {})).to.deep.equal({ ok: true, result: 'still here' });

      two.append(moving);
      await nextTask();
      expect(toolNames(one)).to.deep.equal(['a', 'c']);
      expect(toolNames(two)).to.deep.equal(['moving']);
      expect(await two.invoke('moving', {})).to.deep.equal({ ok: true, result: 'still here' });
    });

    it('tool order is tree order, whatever the order of insertion', async () => {
      const host = await mount(
        `<pedelec-session><pedelec-tool name="c" description="d"></pedelec-tool></pedelec-session>`,
      );
      const session = sessionIn(host);
      const wrapper = document.createElement('div');
      wrapper.append(makeTool('e'));
      session.append(wrapper);
      session.prepend(makeTool('a'));
      session.insertBefore(makeTool('b'), toolIn(host, 'c'));
      wrapper.before(makeTool('d'));
      expect(toolNames(session)).to.deep.equal(['a', 'b', 'c', 'd', 'e']);
      await nextTask();
      // Moving one later in the tree moves it in the manifest.
      session.append(toolIn(host, 'a'));
      expect(toolNames(session)).to.deep.equal(['b', 'c', 'd', 'e', 'a']);
    });
  });
});
