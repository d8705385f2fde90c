/**
 * Tool args are checked against the page's schema before a call reaches the page (session.ts). The
 * kit's validator (src/core/schema) runs in time linear in the args, except for what it cannot bound:
 * a schema's `pattern`, a regular expression the page wrote, which JavaScript runs with backtracking.
 * `^(a+)+$` against forty `a`s and a `!` runs for hours, and Node has no regex timeout: one `/call`
 * used to stop pedelec-dev answering anyone. So, for a tool whose schema has a `pattern` (anywhere):
 * - the check runs in a worker thread, never on the server's own thread;
 * - it has a time budget (1 s by default): past it the worker is terminated — that stops even a regex
 *   in the middle of its run — and the call is refused with `TOOL_ARGS_INVALID` saying so;
 * - before any pattern runs, a string longer than {@link MAX_PATTERN_INPUT} characters that a pattern
 *   would be run on is refused (also `TOOL_ARGS_INVALID`), so a merely slow (polynomial) pattern
 *   meets bounded input too.
 * We chose this over spotting dangerous patterns up front: no such analysis is complete, and a budget
 * holds for any pattern. A tool without a pattern is checked on the spot, as before.
 *
 * One worker, started on first use, checks one call at a time: a session has at most one call in
 * flight. It has a heap of its own, capped, so a check that runs out of memory costs only the worker.
 */
import type { Worker } from 'node:worker_threads';
import type { ToolArgsSchema } from 'pedelec-elements/core';
import { argsError, isPlainObject, MAX_SCHEMA_DEPTH, type ArgsError } from 'pedelec-elements/protocol';
import { startWorker } from '../package-files.js';
import type { PatternAnswer, PatternJob } from './pattern-worker.js';

/** The longest string a schema's pattern is run on, in UTF-16 code units. */
export const MAX_PATTERN_INPUT = 10_000;
/** How long one check (patterns included) may take before it is stopped. */
export const DEFAULT_PATTERN_BUDGET_MS = 1000;
/** The worker's own heap: args (at most one 16 MiB frame) and the validator, not the server's. */
const WORKER_HEAP_MB = 48;

type Job = PatternJob & { resolve(errors: ArgsError[] | null): void };

/**
 * Whether any node of a schema that the validator reads has a `pattern`. Nodes deeper than
 * `MAX_SCHEMA_DEPTH` are never validated (so no pattern of theirs runs), and are not walked: a schema
 * may be nested arbitrarily deep.
 */
export function hasPattern(node: unknown, level = 1): boolean {
  if (!isPlainObject(node) || level > MAX_SCHEMA_DEPTH) return false;
  const below = (child: unknown) => hasPattern(child, level + 1);
  if (node.type === 'string' && Object.hasOwn(node, 'pattern')) return true;
  if (Array.isArray(node.oneOf) && node.oneOf.some(below)) return true;
  if (node.type === 'array' && below(node.items)) return true;
  return node.type === 'object' && isPlainObject(node.properties) && Object.values(node.properties).some(below);
}

/**
 * An error of the pattern check at `keys`. Checks run here only for schemas with a `pattern`, and
 * what fails here is the pattern's check (too long a string for it, or a check past its budget):
 * `reason` says `pattern`.
 */
const patternError = (keys: (string | number)[], rest: string): ArgsError => argsError(keys, 'pattern', rest);

/** A failed check that is not about the args' content: the one error the agent gets. */
const unchecked = (why: string): ArgsError[] => [patternError([], why)];

export class PatternChecks {
  private worker: Worker | null = null;
  private readonly queue: Job[] = [];
  /** The job the worker has; its budget's timer starts once the worker is ready. */
  private running: { job: Job; timer: NodeJS.Timeout | null } | null = null;
  private workerReady = false;
  private nextId = 1;
  private closed = false;

  constructor(private readonly budgetMs: number = DEFAULT_PATTERN_BUDGET_MS) {}

  /** The args' errors (`null`: valid), from the worker; never rejects. */
  check(schema: ToolArgsSchema, args: unknown): Promise<ArgsError[] | null> {
    if (this.closed) return Promise.resolve(unchecked('could not be checked: pedelec-dev is stopping'));
    // Linear in the args and run before any pattern, so it needs neither the worker nor its budget.
    const overlong = overlongPatternInput(schema, args, [], MAX_PATTERN_INPUT);
    if (overlong !== null) {
      const why = `is longer than ${MAX_PATTERN_INPUT} characters, too long for pedelec-dev to check against the schema's pattern`;
      return Promise.resolve([patternError(overlong, why)]);
    }
    return new Promise((resolve) => {
      this.queue.push({ id: this.nextId++, schema, args, resolve });
      this.next();
    });
  }

  /** Stops the worker; checks still waiting are answered as unchecked. */
  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.resolve(unchecked('could not be checked: pedelec-dev is stopping'));
    this.finish(unchecked('could not be checked: pedelec-dev is stopping'));
    const worker = this.worker;
    this.worker = null;
    await worker?.terminate();
  }

  private next(): void {
    if (this.running || this.closed) return;
    const job = this.queue.shift();
    if (!job) return;
    this.running = { job, timer: null };
    const { id, schema, args } = job;
    try {
      this.workerFor().postMessage({ id, schema, args } satisfies PatternJob);
    } catch (error) {
      // Args the structured clone refuses (nested too deep for it): they cannot be checked.
      this.finish(unchecked(`could not be checked (${(error as Error)?.message ?? String(error)})`));
      return;
    }
    if (this.workerReady) this.startBudget();
  }

  /** Starts the running job's time budget: from when a ready worker has it, not from its start-up. */
  private startBudget(): void {
    if (!this.running || this.running.timer) return;
    this.running.timer = setTimeout(() => {
      // The worker may be deep inside a regex: only terminating it stops that. The next job gets a new one.
      this.dropWorker();
      this.finish(
        unchecked(
          `could not be checked within ${this.budgetMs} ms: the schema's pattern takes too long on them (pedelec-dev stops a check there)`,
        ),
      );
    }, this.budgetMs);
  }

  /** Answers the running job (if any) and starts the next. */
  private finish(errors: ArgsError[] | null): void {
    const running = this.running;
    if (!running) return;
    this.running = null;
    if (running.timer) clearTimeout(running.timer);
    running.job.resolve(errors);
    this.next();
  }

  private workerFor(): Worker {
    if (this.worker) return this.worker;
    const worker = startWorker('./bridge/pattern-worker', {
      resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
    });
    worker.unref(); // an idle checker never keeps the process alive
    worker.on('message', (answer: PatternAnswer) => {
      if (this.worker !== worker) return;
      if (answer === 'ready') {
        this.workerReady = true;
        this.startBudget();
      } else if (this.running?.job.id === answer.id) this.finish(answer.errors);
    });
    // Out of memory, or any other death: the running check fails, the next job gets a new worker.
    const died = (why: string) => {
      if (this.worker !== worker) return;
      this.worker = null;
      this.workerReady = false;
      this.finish(unchecked(`could not be checked (${why})`));
    };
    worker.on('error', (error) => died(error.message));
    worker.on('exit', (code) => died(`the checker stopped with code ${code}`));
    this.worker = worker;
    return worker;
  }

  private dropWorker(): void {
    const worker = this.worker;
    this.worker = null;
    this.workerReady = false;
    void worker?.terminate();
  }
}

/**
 * The keys down to the first string longer than `limit` that a `pattern` of the schema would be run
 * on, or null. It follows the schema as deep as the validator reads it (`MAX_SCHEMA_DEPTH` levels,
 * which bounds its recursion), and looks into every `oneOf` alternative: a long string any
 * alternative's pattern would see is refused.
 */
export function overlongPatternInput(
  node: unknown,
  value: unknown,
  keys: (string | number)[],
  limit: number,
  level = 1,
): (string | number)[] | null {
  if (!isPlainObject(node) || level > MAX_SCHEMA_DEPTH) return null;
  if (Array.isArray(node.oneOf)) {
    for (const alternative of node.oneOf) {
      const found = overlongPatternInput(alternative, value, keys, limit, level + 1);
      if (found !== null) return found;
    }
    return null;
  }
  if (typeof value === 'string')
    return node.type === 'string' && typeof node.pattern === 'string' && value.length > limit ? keys : null;
  if (Array.isArray(value) && node.type === 'array' && Object.hasOwn(node, 'items')) {
    for (let i = 0; i < value.length; i++) {
      const found = overlongPatternInput(node.items, value[i], [...keys, i], limit, level + 1);
      if (found !== null) return found;
    }
    return null;
  }
  if (isPlainObject(value) && node.type === 'object' && isPlainObject(node.properties)) {
    for (const name of Object.keys(node.properties)) {
      if (!Object.hasOwn(value, name)) continue;
      const found = overlongPatternInput(node.properties[name], value[name], [...keys, name], limit, level + 1);
      if (found !== null) return found;
    }
  }
  return null;
}
