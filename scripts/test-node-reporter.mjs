// The node:test reporter of `npm run test:node` (scripts/test-node.mjs): quiet when all is well, complete
// when not. It is Node's own `dot` reporter — a dot per test, and after them every failed test in full
// (its name, error, expected/actual and stack) — followed by one line of totals.
import { dot } from 'node:test/reporters';

export default async function* compact(source) {
  const totals = {};
  async function* counted() {
    for await (const event of source) {
      // The run's totals come as diagnostics at the top level ("pass 640", "duration_ms 81234.5"…).
      const total =
        event.type === 'test:diagnostic' &&
        event.data.nesting === 0 &&
        /^(pass|fail|cancelled|skipped|todo|duration_ms) ([\d.]+)$/.exec(event.data.message);
      if (total) totals[total[1]] = Number(total[2]);
      yield event;
    }
  }
  yield* dot(counted());
  const also = ['fail', 'cancelled', 'skipped', 'todo'].filter((key) => totals[key]);
  const parts = [
    `${totals.pass ?? 0} passed`,
    ...also.map((key) => `${totals[key]} ${key === 'fail' ? 'failed' : key}`),
  ];
  yield `test:node: ${parts.join(', ')} (${((totals.duration_ms ?? 0) / 1000).toFixed(1)} s)\n`;
}
