/**
 * `static define(tag, registry)` on every element class (elements.md "Registering"): the define
 * entries use it, a taken tag is left alone, and elements defined under tags of the page's choosing
 * find each other by what they are, not by their tag names.
 */
import { expect } from '@open-wc/testing';
import '../../src/define.js';
import {
  PedelecArgElement,
  PedelecChatElement,
  PedelecGuidanceElement,
  PedelecSessionElement,
  PedelecToolElement,
} from '../../src/index.js';
import { mount, nextTask, uniqueTag } from './helpers.js';
import { until } from '../support/waits.js';
import { boundSessionOf } from '../../src/elements/chat/pedelec-chat.element.js';

/** A registry that records what it is asked, for `define(tag, registry)`. */
function recordingRegistry(): CustomElementRegistry & { defined: [string, CustomElementConstructor][] } {
  const defined: [string, CustomElementConstructor][] = [];
  return {
    defined,
    get: (tag: string) => defined.find(([name]) => name === tag)?.[1],
    define: (tag: string, element: CustomElementConstructor) => void defined.push([tag, element]),
  } as unknown as CustomElementRegistry & { defined: [string, CustomElementConstructor][] };
}

describe('static define()', () => {
  it('the define entries register each class under its default tag', () => {
    expect(customElements.get('pedelec-session')).to.equal(PedelecSessionElement);
    expect(customElements.get('pedelec-tool')).to.equal(PedelecToolElement);
    expect(customElements.get('pedelec-arg')).to.equal(PedelecArgElement);
    expect(customElements.get('pedelec-guidance')).to.equal(PedelecGuidanceElement);
    expect(customElements.get('pedelec-chat')).to.equal(PedelecChatElement);
  });

  it('defines in the registry it is given, under the default tag unless told another', () => {
    const registry = recordingRegistry();
    PedelecSessionElement.define(undefined, registry);
    PedelecChatElement.define('my-chat', registry);
    expect(registry.defined).to.deep.equal([
      ['pedelec-session', PedelecSessionElement],
      ['my-chat', PedelecChatElement],
    ]);
  });

  it('leaves a tag that is taken as it is, without throwing', () => {
    const tag = uniqueTag('taken');
    class Other extends HTMLElement {}
    customElements.define(tag, Other);
    PedelecToolElement.define(tag);
    PedelecToolElement.define('pedelec-tool');
    expect(customElements.get(tag)).to.equal(Other);
    expect(customElements.get('pedelec-tool')).to.equal(PedelecToolElement);
  });

  it('elements under tags of their own work together: tools, args, guidance and chat find their session', async () => {
    const [session, tool, arg, guidance, chat] = ['s', 't', 'a', 'g', 'c'].map((name) => uniqueTag(`my-${name}`));
    PedelecSessionElement.define.call(class extends PedelecSessionElement {}, session);
    PedelecToolElement.define.call(class extends PedelecToolElement {}, tool);
    PedelecArgElement.define.call(class extends PedelecArgElement {}, arg);
    PedelecGuidanceElement.define.call(class extends PedelecGuidanceElement {}, guidance);
    PedelecChatElement.define.call(class extends PedelecChatElement {}, chat);
    const host = await mount(
      `<${session} provider="codex" model="m"><${guidance}>Be brief.</${guidance}>` +
        `<${tool} name="greet" description="Greets."><${arg} name="who" required></${arg}></${tool}>` +
        `<div><${chat}></${chat}></div></${session}>`,
    );
    const sessionElement = host.firstElementChild as PedelecSessionElement;
    await until(() => !!sessionElement.manifest?.tools.length, 'the manifest');
    expect(sessionElement.manifest).to.deep.equal({
      guidance: 'Be brief.',
      tools: [
        {
          name: 'greet',
          description: 'Greets.',
          argsSchema: { type: 'object', properties: { who: { type: 'string' } }, required: ['who'] },
        },
      ],
    });
    const chatElement = host.querySelector(chat) as PedelecChatElement;
    await chatElement.updateComplete;
    expect(chatElement.shadowRoot!.querySelector('textarea')).to.exist;
    // Declarations under tags of their own are hidden as the default tags are: no box at all.
    for (const declaration of [guidance, tool, arg])
      expect(host.querySelector(declaration)!.getClientRects().length, declaration).to.equal(0);
    expect(getComputedStyle(host.querySelector(tool)!).display).to.equal('none');
  });

  it('a chat whose session is defined after it binds once the session upgrades', async () => {
    const session = uniqueTag('late-session');
    const host = await mount(`<${session} provider="codex" model="m"><pedelec-chat></pedelec-chat></${session}>`);
    const chat = host.querySelector('pedelec-chat') as PedelecChatElement;
    await nextTask();
    // Not a session yet: an element that merely has the tag is not bound to.
    expect(boundSessionOf(chat)).to.equal(null);
    PedelecSessionElement.define.call(class extends PedelecSessionElement {}, session);
    await until(() => boundSessionOf(chat) === host.firstElementChild, 'the chat bound to its session');
  });
});
