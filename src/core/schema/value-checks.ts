/**
 * What the args validator measures in a value beyond its type: a string's length in code points, and
 * whether an array's items are unique (JSON equality, depth-bounded).
 */
import { canonicalText } from '../json.js';

/** Arrays up to this length report a too deep element before a duplicate (as a pairwise check would). */
const PAIRWISE_LIMIT = 16;

// ---------------------------------------------------------------------------------------------
// Strings: lengths in code points.

/** Unicode code points in `s`: a surrogate pair counts once, a lone surrogate once. Linear. */
export function codePointLength(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/**
 * `min ≤ code points ≤ max`. A string of n UTF-16 units has between ⌈n/2⌉ and n code points, so
 * most strings are decided from `.length` alone and only borderline ones are counted.
 */
export function lengthWithin(s: string, min: number, max: number): boolean {
  const n = s.length;
  const least = (n + 1) >> 1;
  if (least >= min && n <= max) return true;
  if (n < min || least > max) return false;
  const cp = codePointLength(s);
  return cp >= min && cp <= max;
}

// ---------------------------------------------------------------------------------------------
// uniqueItems: JSON equality, depth-bounded.

let uniqueToken = 0;

/**
 * How uniqueItems spells a value that is not a container: equal for two values exactly when they
 * are JSON-equal (0 and -0 alike, NaN equal to itself). Functions and symbols get a fresh token:
 * never equal to anything.
 */
function leaf(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'bigint') return `${v}n`;
  if (typeof v === 'function' || typeof v === 'symbol') return `#${++uniqueToken}`;
  return String(v);
}

/**
 * `undefined` when no two elements are equal and none is nested more than `budget` levels; else
 * `[index]` of a too deep element or `[first, second]` of the first duplicate, in one pass through
 * a Map of canonical strings. A small array reports a too deep element before a duplicate.
 */
export function uniqueProblem(arr: readonly unknown[], budget: number): number[] | undefined {
  const seen = new Map<string, number>();
  let duplicate: number[] | undefined;
  for (let i = 0; i < arr.length; i++) {
    const key = canonicalText(arr[i], leaf, budget);
    if (key === null) return [i];
    const first = seen.get(key);
    if (first === undefined) seen.set(key, i);
    else if ((duplicate ??= [first, i]) && arr.length > PAIRWISE_LIMIT) return duplicate;
  }
  return duplicate;
}
