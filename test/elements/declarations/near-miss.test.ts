/**
 * A misspelled attribute on `<pedelec-tool>` or `<pedelec-arg>` is said on the console, once, with the
 * element and "did you mean" (`requried` → `required`); attributes that are global, `data-*`,
 * `aria-*` or a framework's, and a page's own attributes far from any of the element's, say nothing.
 */
import { expect } from '@open-wc/testing';
import '../../../src/define.js';
import { until } from '../../support/waits.js';
import { mount } from '../helpers.js';

/** Every console.warn from now on, until `restore()`. */
function watchWarnings() {
  const warnings: unknown[][] = [];
  const { warn } = console;
  console.warn = (...args: unknown[]) => void warnings.push(args);
  return { warnings, restore: () => (console.warn = warn) };
}

describe('misspelled attributes on kit elements', () => {
  it('are said once, with the element and the attribute meant', async () => {
    const watched = watchWarnings();
    try {
      const host = await mount(`<pedelec-session>
        <pedelec-tool name="limit" descripton="Sets the limit." description="Sets the limit.">
          <pedelec-arg name="n" type="integer" requried maxium="10"></pedelec-arg>
        </pedelec-tool>
      </pedelec-session>`);
      const tool = host.querySelector('pedelec-tool')!;
      const arg = host.querySelector('pedelec-arg')!;
      expect(host.querySelector('pedelec-session')!.manifest).to.not.equal(undefined);
      await until(() => watched.warnings.length >= 3, 'three warnings');
      const said = watched.warnings.map(([message, element]) => [message, element]);
      expect(said).to.have.deep.members([
        ['[pedelec] <pedelec-tool> has no attribute descripton: did you mean description?', tool],
        ['[pedelec] <pedelec-arg> has no attribute requried: did you mean required?', arg],
        ['[pedelec] <pedelec-arg> has no attribute maxium: did you mean maximum?', arg],
      ]);
      // Read again (a change elsewhere in the tool): nothing said twice.
      arg.setAttribute('description', 'The limit.');
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(watched.warnings).to.have.length(3);
    } finally {
      watched.restore();
    }
  });

  it('on the session and the chat too', async () => {
    const watched = watchWarnings();
    try {
      const host = await mount(
        `<pedelec-session provder="codex" autostrat><pedelec-chat makrdown></pedelec-chat></pedelec-session>`,
      );
      await until(() => watched.warnings.length >= 3, 'three warnings');
      expect(watched.warnings.map(([message]) => message)).to.have.members([
        '[pedelec] <pedelec-session> has no attribute provder: did you mean provider?',
        '[pedelec] <pedelec-session> has no attribute autostrat: did you mean autostart?',
        '[pedelec] <pedelec-chat> has no attribute makrdown: did you mean markdown?',
      ]);
      expect(watched.warnings.find(([message]) => String(message).includes('makrdown'))![1]).to.equal(
        host.querySelector('pedelec-chat'),
      );
    } finally {
      watched.restore();
    }
  });

  it('global, data-*, aria-*, framework and far-off attributes say nothing', async () => {
    const watched = watchWarnings();
    try {
      await mount(`<pedelec-session>
        <pedelec-tool name="t" description="T." id="a" class="b" data-role="x" aria-label="y" _ngcontent-ng-c1=""
                      ng-reflect-name="t" data-v-7ba5bd90="" my-app-thing="z">
          <pedelec-arg name="n" type="integer" required maximum="10" hidden data-test="n" analytics-tag="n"></pedelec-arg>
        </pedelec-tool>
      </pedelec-session>`);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(watched.warnings).to.deep.equal([]);
    } finally {
      watched.restore();
    }
  });
});
