/**
 * Drop-in compatibility with the public Pedelec SDK (sdk-compat.md §1): the `Pedelec` client —
 * how createSession reads its input, resumeSession's answer, unregisterSession, and the errors it
 * copies from the bridge. Each rule is one test, written as an SDK user's page calls the API, on
 * the fake Chrome port.
 */
import { describe, it } from 'node:test';
import { expect } from '../../support/expect.js';
import { rejection, track } from '../../support/promises.js';
import { nextTask } from '../../support/waits.js';
import { fake, client, openSession, clientHooks } from '../client/harness.js';

clientHooks();

describe('SDK compatibility: the Pedelec client', () => {
  it('every PedelecError copied from a {code, message} value has an own details key (undefined when none)', async () => {
    const c = client();
    const session = await openSession(c, 's1');
    const errors: unknown[] = [];
    session.onError((error) => errors.push(error));
    const copied = (error: unknown) => {
      expect(error).to.have.own.property('details', undefined);
      expect(Object.keys(error as object)).to.deep.equal(['code', 'message', 'details']);
    };

    // A refused request.
    const refused = c.getSettings();
    fake.fail({ code: 'APPROVAL_REJECTED', message: 'The user said no.' });
    copied(await rejection(refused));
    // An error event, and a transport-wide one.
    fake.event('s1', 'error', { error: { code: 'PROVIDER_DOWN', message: 'down' } });
    fake.emit({ type: 'error', error: { code: 'NATIVE_HOST_UNAVAILABLE', message: 'gone' } });
    expect(errors).to.have.length(2);
    errors.forEach(copied);
    // A thrown handler object, as the agent gets it.
    session.onTool('locked', () => {
      throw { code: 'COUNTER_LOCKED', message: 'Locked by admin' };
    });
    track(session.sendText('go'));
    fake.event('s1', 'tool_call', { toolRequestId: 'r1', tool: 'locked', args: {} });
    copied((await fake.request('submit_tool_result')).result.error);
    // A disconnect whose lastError is a {code, message}.
    const pending = c.getSettings();
    fake.disconnect({ code: 'PORT_CLOSED', message: 'The port closed.' });
    copied(await rejection(pending));
    await nextTask();
  });
});
