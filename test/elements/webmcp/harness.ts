/**
 * The harness of the WebMCP tests (test/elements/webmcp/): the browser's own agent API, driven as the
 * browser's agent drives it — Chromium's `document.modelContext` (`getTools`, `executeTool`) or
 * Firefox's `navigator.modelContext` (`getTools`, `invokeTool`, with dom.modelcontext.testing.enabled)
 * — plus a record of what the kit asked the model context, for what an agent cannot see (options such
 * as `exposedTo`, how often a tool was registered). The test browsers run with WebMCP on
 * (web-test-runner*.config.mjs).
 */
import { expect, fixtureCleanup } from '@open-wc/testing';
import '../../../src/define.js';
import { until } from '../../support/waits.js';

/** What a tool looks like to the browser's agent. */
export type Listed = { name: string; description: string; inputSchema?: unknown; title?: string; annotations?: any };

type Context = {
  registerTool(tool: any, options?: any): unknown;
  unregisterTool?(name: string): void;
  getTools(): unknown;
  executeTool?(tool: unknown, input: unknown, options?: { signal?: AbortSignal }): Promise<string>;
  invokeTool?(name: string, input: unknown): unknown;
};

/** The page's model context: Chromium's on `document`, Firefox's on `navigator`. */
export const context = (): Context => (document as any).modelContext ?? (navigator as any).modelContext;

/** Chromium's surface (promises, signals, events, name clashes): what Firefox does not have. */
export const chromium = (): boolean => !!(document as any).modelContext;

/** The tools this window registered (Chromium also lists same-origin frames'), as an agent sees them. */
export async function listed(): Promise<Listed[]> {
  const all = (await context().getTools()) as any[];
  return all
    .filter((tool) => !('window' in tool) || tool.window === window)
    .map(({ name, description, inputSchema, title, annotations }) => ({
      name,
      description,
      inputSchema,
      title,
      annotations,
    }));
}

export const names = async (): Promise<string[]> => (await listed()).map((t) => t.name).sort();

/** Waits (a task at a time, at most 3 s) until the browser lists exactly these tool names. */
export async function listedAs(expected: string[], what = `the tools ${expected.join(', ')}`): Promise<void> {
  const want = [...expected].sort();
  let seen: string[] = [];
  await until(
    async () => JSON.stringify((seen = await names())) === JSON.stringify(want),
    () => `${what} (listed: ${seen.join(', ')})`,
    3000,
  );
}

/** Waits (a task at a time, at most 3 s) until the browser lists `name` and `check` holds for it. */
export async function listedSo(name: string, check: (tool: Listed) => boolean, what: string): Promise<Listed> {
  let tool: Listed | undefined;
  return until(
    async () => {
      tool = (await listed()).find((t) => t.name === name);
      return tool && check(tool) ? tool : undefined;
    },
    () => `${what}: ${JSON.stringify(tool)}`,
    3000,
  );
}

/** Calls a tool as the browser's agent does, and returns what the agent gets (parsed). */
export async function callAsAgent(name: string, input: unknown, signal?: AbortSignal): Promise<any> {
  const mc = context();
  if (mc.executeTool) {
    const tool = ((await mc.getTools()) as any[]).find((t) => t.name === name && t.window === window);
    expect(tool, `${name} is listed`).to.exist;
    return JSON.parse(await mc.executeTool(tool, input, { signal }));
  }
  return mc.invokeTool!(name, input);
}

/** The text of a `CallToolResult`'s one content item. */
export const textOf = (result: any): string => {
  expect(result.content).to.have.length(1);
  expect(result.content[0].type).to.equal('text');
  return result.content[0].text;
};

export type Registered = { name: string; tool: any; options: any };

/**
 * Records every `registerTool` / `unregisterTool` the kit makes on the model context (still passing
 * them on), until `restore()`.
 */
export function recordContext(): { registered: Registered[]; unregistered: string[]; restore(): void } {
  const mc = context() as any;
  const registered: Registered[] = [];
  const unregistered: string[] = [];
  const { registerTool, unregisterTool } = mc;
  mc.registerTool = function (tool: any, options: any) {
    registered.push({ name: tool.name, tool, options });
    return registerTool.call(this, tool, options);
  };
  if (unregisterTool)
    mc.unregisterTool = function (name: string) {
      unregistered.push(name);
      return unregisterTool.call(this, name);
    };
  return {
    registered,
    unregistered,
    restore() {
      delete mc.registerTool;
      delete mc.unregisterTool;
    },
  };
}

/** After each test: the sessions are gone (open-wc removed them), so are their tools — none leaks into the next test. */
export function webmcpHooks(): void {
  afterEach(async () => {
    fixtureCleanup(); // open-wc's own cleanup runs after this file's hooks: too late for the check
    await listedAs([], 'every tool of the test to be unregistered');
  });
}
