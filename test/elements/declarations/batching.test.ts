/**
 * Rebuilding the manifest in batches (docs/design/elements.md "Changes after start"; performance): 1 000 tools
 * inserted in one task cost one build, one change costs one, and what is no tool change (a handler, a
 * property written with the value it has, a class or data-* attribute, a tool's own invalid
 * attribute) costs none.
 */
import { expect } from '@open-wc/testing';
import '../../../src/define.js';
import type { PedelecToolElement } from '../../../src/index.js';
import { sessionIn, toolIn, makeTool, declarationHooks } from './harness.js';
import { manifestTool, mount } from '../helpers.js';
import { nextTask } from '../../support/waits.js';
import { buildsOf } from '../../../src/elements/session/pedelec-session.element.js';

/** The tool's own update and the task's changes are in. */
async function settled(tool: PedelecToolElement): Promise<void> {
  await tool.updateComplete;
  await nextTask();
}

/** A session mounted from `markup`, with its tool `t` settled; the builds so far and the manifest then. */
async function mountedWithTool(markup: string) {
  const host = await mount(markup);
  const session = sessionIn(host);
  const tool = toolIn(host, 't');
  await settled(tool);
  return { session, tool, before: buildsOf(session), manifest: session.manifest };
}

describe('declarations', () => {
  declarationHooks();

  describe('batched rebuilds', () => {
    it('1 000 tools (3 args each) inserted in one task cost exactly one build', async () => {
      const host = await mount(`<pedelec-session></pedelec-session>`);
      const session = sessionIn(host);
      await nextTask();
      const before = buildsOf(session);

      const tools: PedelecToolElement[] = [];
      for (let i = 0; i < 1000; i++) {
        const tool = makeTool(`tool_${i}`);
        for (const [name, type] of [
          ['text', 'string'],
          ['count', 'integer'],
          ['on', 'boolean'],
        ]) {
          const arg = document.createElement('pedelec-arg');
          arg.setAttribute('name', name!);
          arg.setAttribute('type', type!);
          if (name === 'count') arg.setAttribute('required', '');
          tool.append(arg);
        }
        session.append(tool);
        tools.push(tool);
      }
      await nextTask();
      const afterBatch = buildsOf(session);
      const manifest = session.manifest!;
      expect(afterBatch - before, 'builds for the batch of 1 000').to.equal(1);
      expect(manifest.tools).to.have.length(1000);
      expect(manifest.tools.map((t) => t.name)).to.deep.equal(tools.map((_, i) => `tool_${i}`));
      expect(manifest.tools[999]!.argsSchema).to.deep.equal({
        type: 'object',
        properties: { text: { type: 'string' }, count: { type: 'integer' }, on: { type: 'boolean' } },
        required: ['count'],
      });
    });

    it('one change among 1 000 tools costs one build (attribute, property, or a <pedelec-arg> child)', async () => {
      const host = await mount(`<pedelec-session></pedelec-session>`);
      const session = sessionIn(host);
      const tools: PedelecToolElement[] = [];
      for (let i = 0; i < 1000; i++) {
        const tool = makeTool(`tool_${i}`);
        const arg = document.createElement('pedelec-arg');
        arg.setAttribute('name', 'n');
        arg.setAttribute('type', 'integer');
        tool.append(arg);
        session.append(tool);
        tools.push(tool);
      }
      await nextTask();
      expect(session.manifest?.tools).to.have.length(1000);

      const beforeAttribute = buildsOf(session);
      tools[500]!.setAttribute('description', 'Changed by attribute.');
      await nextTask();
      expect(buildsOf(session) - beforeAttribute, 'builds for one attribute change').to.equal(1);
      expect(manifestTool(session, 'tool_500').description).to.equal('Changed by attribute.');

      const beforeProperty = buildsOf(session);
      tools[501]!.description = 'Changed by property.';
      await nextTask();
      expect(buildsOf(session) - beforeProperty, 'builds for one property change').to.equal(1);
      expect(manifestTool(session, 'tool_501').description).to.equal('Changed by property.');

      const beforeArg = buildsOf(session);
      tools[502]!.querySelector('pedelec-arg')!.setAttribute('minimum', '0');
      await nextTask();
      expect(buildsOf(session) - beforeArg, 'builds for one <pedelec-arg> change').to.equal(1);
      expect(manifestTool(session, 'tool_502').argsSchema).to.deep.equal({
        type: 'object',
        properties: { n: { type: 'integer', minimum: 0 } },
      });
    });

    it('a handler change is never a tool change: no build', async () => {
      const { session, tool, before, manifest } = await mountedWithTool(
        `<pedelec-session><pedelec-tool name="t" description="d"></pedelec-tool></pedelec-session>`,
      );
      tool.handler = () => 'first';
      await settled(tool);
      tool.handler = () => 'second';
      await settled(tool);
      expect(buildsOf(session)).to.equal(before);
      expect(session.manifest).to.equal(manifest);
      expect(await session.invoke('t', {})).to.deep.equal({ ok: true, result: 'second' });
    });

    it('a property written with the value it has is no change: no build, the same manifest', async () => {
      const { session, tool, before, manifest } = await mountedWithTool(
        `<pedelec-session><pedelec-tool name="t" description="d" timeout-ms="500"></pedelec-tool></pedelec-session>`,
      );
      // Each property written with the value it holds (as a framework re-rendering the same props does).
      const { name, description, timeoutMs } = tool;
      const { guidance } = session;
      tool.name = name;
      tool.description = description;
      tool.timeoutMs = timeoutMs;
      session.guidance = guidance;
      expect(session.manifest, 'read in the same task').to.equal(manifest);
      await settled(tool);
      expect(buildsOf(session)).to.equal(before);
      expect(session.manifest).to.equal(manifest);
    });

    it('a class or data-* change on an arg is no tool change: no build, no recompiled validator', async () => {
      const host = await mount(
        `<pedelec-session><pedelec-tool name="t" description="d"><pedelec-arg name="n" type="integer"></pedelec-arg></pedelec-tool></pedelec-session>`,
      );
      const session = sessionIn(host);
      await nextTask();
      const before = buildsOf(session);
      const arg = host.querySelector('pedelec-arg')!;
      arg.classList.add('highlight');
      arg.setAttribute('data-x', '1');
      await nextTask();
      expect(buildsOf(session)).to.equal(before);
      arg.setAttribute('minimum', '3');
      await nextTask();
      expect(buildsOf(session)).to.equal(before + 1);
      expect(manifestTool(session, 't').argsSchema).to.deep.equal({
        type: 'object',
        properties: { n: { type: 'integer', minimum: 3 } },
      });
    });

    it('a tool that becomes invalid costs one build (its own invalid attribute is no change)', async () => {
      const host = await mount(
        `<pedelec-session><pedelec-tool name="t" description="d"></pedelec-tool></pedelec-session>`,
      );
      const session = sessionIn(host);
      const tool = toolIn(host, 't');
      await nextTask();
      const before = buildsOf(session);
      tool.setAttribute('schema', '{bad');
      await tool.updateComplete;
      await nextTask();
      expect(tool.hasAttribute('invalid')).to.equal(true);
      expect(buildsOf(session)).to.equal(before + 1);
    });
  });
});
