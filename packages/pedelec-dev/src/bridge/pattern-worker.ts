/**
 * The worker thread of {@link PatternChecks} (pattern-check.ts): checks one tool call's args against
 * its schema — the kit's own validator, patterns included — and posts the errors back. It may be
 * terminated in the middle of a check (a pattern past its time budget); it keeps nothing between checks.
 */
import { parentPort } from 'node:worker_threads';
import type { ToolArgsSchema } from 'pedelec-elements/core';
import {
  appendKey,
  compileArgsValidator,
  isPlainObject,
  MAX_SCHEMA_DEPTH,
  type ArgsError,
} from 'pedelec-elements/protocol';

export type PatternJob = { id: number; schema: ToolArgsSchema; args: unknown; maxInput: number };
export type PatternAnswer = { id: number; errors: ArgsError[] | null };

/**
 * The path of the first string longer than `limit` that a `pattern` of the schema would be run on, or
 * null. It follows the schema as deep as the validator reads it (`MAX_SCHEMA_DEPTH` levels, which
 * bounds its recursion), and looks into every `oneOf` alternative: a long string any alternative's
 * pattern would see is refused.
 */
export function overlongPatternInput(
  node: unknown,
  value: unknown,
  path: string,
  limit: number,
  level = 1,
): string | null {
  if (!isPlainObject(node) || level > MAX_SCHEMA_DEPTH) return null;
  if (Array.isArray(node.oneOf)) {
    for (const alternative of node.oneOf) {
      const found = overlongPatternInput(alternative, value, path, limit, level + 1);
      if (found !== null) return found;
    }
    return null;
  }
  if (typeof value === 'string')
    return node.type === 'string' && typeof node.pattern === 'string' && value.length > limit ? path : null;
  if (Array.isArray(value) && node.type === 'array' && Object.hasOwn(node, 'items')) {
    for (let i = 0; i < value.length; i++) {
      const found = overlongPatternInput(node.items, value[i], `${path}[${i}]`, limit, level + 1);
      if (found !== null) return found;
    }
    return null;
  }
  if (isPlainObject(value) && node.type === 'object' && isPlainObject(node.properties)) {
    for (const name of Object.keys(node.properties)) {
      if (!Object.hasOwn(value, name)) continue;
      const found = overlongPatternInput(node.properties[name], value[name], appendKey(path, name), limit, level + 1);
      if (found !== null) return found;
    }
  }
  return null;
}

function check({ schema, args, maxInput }: PatternJob): ArgsError[] | null {
  const overlong = overlongPatternInput(schema, args, '', maxInput);
  if (overlong !== null) {
    const where = overlong || 'args';
    return [
      {
        path: overlong,
        message: `${where}: is longer than ${maxInput} characters, too long for pedelec-dev to check against the schema's pattern`,
      },
    ];
  }
  return compileArgsValidator(schema)(args);
}

parentPort?.on('message', (job: PatternJob) => {
  let errors: ArgsError[] | null;
  try {
    errors = check(job);
  } catch (error) {
    errors = [{ path: '', message: `args: could not be checked (${(error as Error)?.message ?? String(error)})` }];
  }
  parentPort?.postMessage({ id: job.id, errors } satisfies PatternAnswer);
});
