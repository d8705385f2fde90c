/** The tools the demo's session declares (demo/index.html), sorted: what every agent is offered. */
export const DEMO_TOOLS = Object.freeze([
  'add_todo',
  'complete_todo',
  'get_counter',
  'get_current_page',
  'list_todos',
  'set_counter',
  'update_counter',
]);
