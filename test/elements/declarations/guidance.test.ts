/**
 * <pedelec-guidance> (docs/design/elements.md): its text becomes manifest.guidance and follows changes; the
 * guidance attribute and a child at once are refused.
 */
import { expect } from '@open-wc/testing';
import '../../../src/define.js';
import type { PedelecErrorEvent } from '../../../src/index.js';
import { sessionIn, declarationHooks } from './harness.js';
import { mount, mountHost, record } from '../helpers.js';
import { nextTask } from '../../support/waits.js';

describe('declarations', () => {
  declarationHooks();

  describe('<pedelec-guidance>', () => {
    it('its text content becomes manifest.guidance, and follows text changes', async () => {
      const host = await mount(`
        <pedelec-session>
          <pedelec-guidance>
            Use update_counter when the user asks to change the counter.
          </pedelec-guidance>
        </pedelec-session>`);
      const session = sessionIn(host);
      expect(session.manifest).to.deep.equal({
        guidance: 'Use update_counter when the user asks to change the counter.',
        tools: [],
      });
      const guidance = host.querySelector('pedelec-guidance')!;
      guidance.textContent = 'Something else.';
      await nextTask();
      expect(session.manifest?.guidance).to.equal('Something else.');

      // Detached it no longer counts; reattached it counts again.
      guidance.remove();
      expect(session.manifest?.guidance ?? '').to.equal('');
      session.append(guidance);
      expect(session.manifest?.guidance).to.equal('Something else.');
    });

    it('guidance attribute and child at once → pedelec-error INVALID_INPUT', async () => {
      const host = await mountHost();
      const errors = record<PedelecErrorEvent>(host, 'pedelec-error');
      host.innerHTML = `<pedelec-session guidance="From the attribute."><pedelec-guidance>From the child.</pedelec-guidance></pedelec-session>`;
      const session = sessionIn(host);
      await nextTask();
      expect(errors).to.have.length(1);
      expect(errors[0]!.target).to.equal(session);
      expect(errors[0]!.detail.error.code).to.equal('INVALID_INPUT');
    });
  });
});
