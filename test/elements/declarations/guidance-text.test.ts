/**
 * <pedelec-guidance>: its text reaches the agent as the author wrote it, not with the indentation of
 * the HTML it sits in.
 */
import { expect } from '@open-wc/testing';
import '../../../src/define.js';
import type { PedelecSessionElement } from '../../../src/index.js';
import { mount } from '../helpers.js';

const guidanceOf = async (markup: string) => {
  const host = await mount(markup);
  return host.querySelector<PedelecSessionElement>('pedelec-session')!.manifest?.guidance;
};

describe('<pedelec-guidance> text', () => {
  it('loses the indentation of the page around it, keeping its own lines', async () => {
    expect(
      await guidanceOf(`
        <main>
          <pedelec-session>
            <pedelec-guidance>
              This page has a counter and a to-do list. Read state with get_counter before changing
              it. Use update_counter to change the counter.
            </pedelec-guidance>
          </pedelec-session>
        </main>`),
    ).to.equal(
      'This page has a counter and a to-do list. Read state with get_counter before changing\n' +
        'it. Use update_counter to change the counter.',
    );
  });

  it('keeps the indentation of its own nesting (a list), and blank lines inside', async () => {
    expect(
      await guidanceOf(`
        <pedelec-session>
          <pedelec-guidance>
            Rules:
              - read before you write
              - ask before deleting

            Be brief.
          </pedelec-guidance>
        </pedelec-session>`),
    ).to.equal('Rules:\n  - read before you write\n  - ask before deleting\n\nBe brief.');
  });

  it('a first line right after the tag does not hide the indentation of the others', async () => {
    expect(
      await guidanceOf(`
        <pedelec-session>
          <pedelec-guidance>Use update_counter for the counter.
            Use add_todo for the list.   
          </pedelec-guidance>
        </pedelec-session>`),
    ).to.equal('Use update_counter for the counter.\nUse add_todo for the list.');
    expect(
      await guidanceOf(`<pedelec-session><pedelec-guidance>  One line.  </pedelec-guidance></pedelec-session>`),
    ).to.equal('One line.');
  });
});
