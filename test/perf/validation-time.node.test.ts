/**
 * How long the args validator takes on hostile input (spec reliability.md, "Bad arguments from the
 * agent"): a 10 MB string and 100 000-element `uniqueItems` within 2 s, lengths checked before a
 * pathological pattern, and every one of these linear in the input — each timed at N and at 2N, whose
 * ratio tells linear from quadratic work whatever else the machine is doing. Times are the process's
 * CPU time, not the wall clock. What the validator answers is tested in test/core/schema.test.ts.
 */
import { describe, it } from 'node:test';
import { expect } from '../support/expect.js';
import { compileArgsValidator } from '../../src/core/schema/compile.js';
import type { ToolArgsSchema, ToolArgsSchemaNode } from '../../src/core/schema/types.js';

/** The process's CPU time `fn` takes, in ms: the fastest of `rounds`, without the moments the machine was busy. */
function cpuMs(fn: () => unknown, rounds = 3): number {
  let best = Infinity;
  for (let i = 0; i < rounds; i++) {
    const start = process.cpuUsage();
    fn();
    const used = process.cpuUsage(start);
    best = Math.min(best, (used.user + used.system) / 1000);
  }
  return best;
}

/**
 * Times `work(n)` and `work(2n)`: twice the input may cost at most three times as much (linear work
 * costs twice; quadratic four times). A floor of a few ms absorbs the clock's granularity. With
 * `apart: 4`, `work(4n)` is timed too and may cost at most eight times `work(n)` (linear four,
 * quadratic sixteen): for work whose cost jumps where a hash table grows, which at twice the input can
 * land between the two sizes and look quadratic on a busy machine.
 */
function expectLinear(what: string, n: number, work: (n: number) => () => unknown, apart: 2 | 4 = 2): { at2n: number } {
  const [small, large] = [work(n), work(2 * n)];
  // Warm-up: the first run also compiles the code under test, and touches the input's memory.
  small();
  large();
  // The fastest of five: a busy machine's moments (another process, a collection) only slow a round down.
  const [atN, at2n] = [cpuMs(small, 5), cpuMs(large, 5)];
  if (apart === 2) {
    expect(at2n, `${what}: ${atN.toFixed(1)} ms at ${n}, ${at2n.toFixed(1)} ms at ${2 * n}`).to.be.below(3 * atN + 5);
  } else {
    const larger = work(4 * n);
    larger();
    const at4n = cpuMs(larger, 5);
    expect(at4n, `${what}: ${atN.toFixed(1)} ms at ${n}, ${at4n.toFixed(1)} ms at ${4 * n}`).to.be.below(8 * atN + 5);
  }
  return { at2n };
}

const stringSchema = (node: ToolArgsSchemaNode): ToolArgsSchema => ({
  type: 'object',
  properties: { name: node },
  required: ['name'],
});
const uniqueSchema = (items: ToolArgsSchemaNode): ToolArgsSchema => ({
  type: 'object',
  properties: { tags: { type: 'array', items, uniqueItems: true } },
});
const MiB = 1024 * 1024;

describe('validation time on hostile input', () => {
  it('a pathological pattern never sees an over-long string: 40 characters are refused at once', () => {
    const validate = compileArgsValidator(stringSchema({ type: 'string', maxLength: 10, pattern: '^(a+)+$' }));
    // Without the length check first, this pattern backtracks for minutes on 40 characters.
    expect(cpuMs(() => validate({ name: `${'a'.repeat(40)}!` }))).to.be.below(2000);
  });

  it('a string with maxLength and pattern: linear, 10 MB within 2 s', () => {
    const validate = compileArgsValidator(stringSchema({ type: 'string', maxLength: 20_000_000, pattern: 'z$' }));
    const { at2n } = expectLinear('ASCII', 5 * MiB, (n) => {
      const text = `${'a'.repeat(n)}z`;
      return () => validate({ name: text });
    });
    expect(at2n).to.be.below(2000);
  });

  it('borderline lengths count code points over the whole string: linear, 10 MB within 2 s', () => {
    const { at2n } = expectLinear('emoji', 5 * MiB, (n) => {
      const validate = compileArgsValidator(stringSchema({ type: 'string', maxLength: n / 2 - 1, pattern: '😀$' }));
      const emoji = '😀'.repeat(n / 2);
      return () => validate({ name: emoji });
    });
    expect(at2n).to.be.below(2000);
  });

  it('uniqueItems over numbers and over records: linear, 100 000 within 2 s', () => {
    const ints = compileArgsValidator(uniqueSchema({ type: 'integer' }));
    const objects = compileArgsValidator(uniqueSchema({ type: 'object' }));
    // A set of seen values grows as it goes: four times apart (see expectLinear).
    const numbers = expectLinear(
      'numbers',
      50_000,
      (n) => {
        const list = [...Array.from({ length: n }, (_, i) => i), 42];
        return () => ints({ tags: list });
      },
      4,
    );
    const records = expectLinear(
      'records',
      50_000,
      (n) => {
        const list = Array.from({ length: n }, (_, i) => ({ id: i, name: `n${i}`, tags: ['x', i % 7] }));
        return () => objects({ tags: [...list, { tags: ['x', 3], name: 'n10', id: 10 }] });
      },
      4,
    );
    expect(numbers.at2n).to.be.below(2000);
    expect(records.at2n).to.be.below(2000);
  });

  it('required names are compiled in linear time (each was once looked up in the whole list: minutes)', () => {
    // The names go through a set too: four times apart (see expectLinear).
    expectLinear(
      'required names',
      50_000,
      (n) => {
        const required = Array.from({ length: n }, (_, i) => `r${i}`);
        return () => compileArgsValidator({ type: 'object', required });
      },
      4,
    );
  });
});
