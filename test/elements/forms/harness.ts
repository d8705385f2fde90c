/**
 * Shared by the `<pedelec-tool form>` tests (test/elements/forms/): a page with a form and a session
 * whose tool names it, the hooks every file runs under (a fresh fake Chrome port per test, so a session
 * can be started), and a wait for the form binding — a lazy chunk — to have read a tool's form.
 */
import type { PedelecSessionElement, PedelecToolElement } from '../../../src/index.js';
import '../../../src/define.js';
import { installFakeChrome, mount, uninstallFakeChrome, type FakePort } from '../helpers.js';
import { until } from '../../support/waits.js';

export let fake: FakePort;

/** A fresh fake extension port before each test; removed (with what the test mounted) after it. */
export function formHooks(): void {
  beforeEach(() => {
    fake = installFakeChrome();
  });
  afterEach(() => {
    for (const el of Array.from(document.querySelectorAll('pedelec-session'))) el.remove();
    uninstallFakeChrome();
  });
}

/** Mounts `markup` and returns the session, the tool named `tool` and the form with id `form`. */
export async function page(
  markup: string,
  tool = 'book',
  form = 'booking',
): Promise<{ host: HTMLElement; session: PedelecSessionElement; tool: PedelecToolElement; form: HTMLFormElement }> {
  const host = await mount(markup);
  const session = host.querySelector('pedelec-session') as PedelecSessionElement;
  return {
    host,
    session,
    tool: host.querySelector(`pedelec-tool[name="${tool}"]`) as PedelecToolElement,
    form: host.querySelector(`form#${form}`) as HTMLFormElement,
  };
}

/** The tool's args schema in the session's manifest (undefined while it is not there). */
export const schemaOf = (session: PedelecSessionElement, name: string): any =>
  session.manifest?.tools.find((t) => t.name === name)?.argsSchema;

/** Waits until the form binding has read the tool's form: its schema has the arg `name`. */
export async function bound(session: PedelecSessionElement, tool: string, arg: string): Promise<any> {
  await until(() => schemaOf(session, tool)?.properties?.[arg], `the form binding to read ${tool}'s form`);
  return schemaOf(session, tool);
}
