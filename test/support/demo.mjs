/** The tools the demo's session declares (demo/index.html), sorted: what every agent is offered. */
export const DEMO_TOOLS = Object.freeze([
  'add_todo',
  'clear_todos',
  'complete_todo',
  'get_counter',
  'get_current_page',
  'list_todos',
  'set_counter',
  'update_counter',
]);

/** The demo's consequential tools: offered to the browser's agent only with `webmcp="… consequential"`. */
export const CONSEQUENTIAL_DEMO_TOOLS = Object.freeze(['clear_todos']);

/**
 * Adds a tool of the test's own to the demo's session in `page` (Puppeteer): `wait_for_cancel` runs
 * until its call is cancelled, then records the abort reason's code in `window.cancelled`.
 */
export function addWaitingTool(page) {
  return page.evaluate(() => {
    const tool = document.createElement('pedelec-tool');
    tool.setAttribute('name', 'wait_for_cancel');
    tool.setAttribute('description', 'Waits until cancelled.');
    tool.handler = (_args, ctx) =>
      new Promise((resolve) =>
        ctx.signal.addEventListener('abort', () => {
          window.cancelled = ctx.signal.reason?.code ?? 'aborted';
          resolve({ stopped: true });
        }),
      );
    document.querySelector('pedelec-session').append(tool);
  });
}
