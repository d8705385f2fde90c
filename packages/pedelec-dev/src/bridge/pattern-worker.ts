/**
 * The worker thread of {@link PatternChecks} (pattern-check.ts): checks one tool call's args against
 * its schema — the kit's own validator, patterns included — and posts the errors back. It may be
 * terminated in the middle of a check (a pattern past its time budget); it keeps nothing between checks.
 * It says `ready` once loaded, so that its start-up (seconds, from source on a busy machine) is not
 * counted against a check's budget.
 */
import { parentPort } from 'node:worker_threads';
import type { ToolArgsSchema } from 'pedelec-elements/core';
import { argsError, compileArgsValidator, type ArgsError } from 'pedelec-elements/protocol';

export type PatternJob = { id: number; schema: ToolArgsSchema; args: unknown };
/** A check's errors, or `ready`: sent once, when the worker has loaded and takes jobs. */
export type PatternAnswer = { id: number; errors: ArgsError[] | null } | 'ready';

parentPort?.on('message', (job: PatternJob) => {
  let errors: ArgsError[] | null;
  try {
    errors = compileArgsValidator(job.schema)(job.args);
  } catch (error) {
    errors = [argsError([], 'pattern', `could not be checked (${(error as Error)?.message ?? String(error)})`)];
  }
  parentPort?.postMessage({ id: job.id, errors } satisfies PatternAnswer);
});
parentPort?.postMessage('ready' satisfies PatternAnswer);
