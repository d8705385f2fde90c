/**
 * How the args validator says what is wrong with the args (args-schema.md "Validation semantics"): the
 * {@link ArgsError} it reports for each failing keyword, and the words of its messages. Kept apart from
 * the walk that compiles the validator (compile.ts): whoever else reports invalid args — the toolbox,
 * an approval's edited args, a Core written beside the kit — says it the same way.
 */
import { pathOf, pointerOf } from '../json.js';

/**
 * One way the args are invalid. `path` names the value in JS notation (`items[0].qty`; for a missing
 * property, the property) and `message` says what is wrong with it. The WebMCP drafts' triple says
 * the same for machines, as the browsers' own argument errors do: `pointer`, the same place as a JSON
 * Pointer (`/items/0/qty`); `reason`, the keyword that failed (`type`, `required`, `enum`, `pattern`,
 * `minimum`, `maxLength`, `uniqueItems`, `oneOf`…); `schemaPath`, that keyword's JSON Pointer in the
 * failing subschema (`/required`).
 */
export type ArgsError = { path: string; message: string; pointer: string; reason: string; schemaPath: string };

/** How many errors one validation reports at most. */
export const MAX_ERRORS = 10;
/** Enum values listed in a message before it is shortened. */
const ENUM_LISTED = 20;

/** The names and indexes from the args down to a value. */
export type Keys = (string | number)[];

/** What a `TOOL_ARGS_INVALID` message says: every failing path of `errors` (at most {@link MAX_ERRORS}). */
export const argsMessage = (errors: readonly ArgsError[]): string => errors.map((error) => error.message).join('; ');

/** One error: the `reason` keyword failed for the value at `keys` (for `required`, the missing property). */
export const argsError = (keys: Keys, reason: string, rest: string): ArgsError => {
  const path = pathOf(keys);
  return { path, message: `${path || 'args'}: ${rest}`, pointer: pointerOf(keys), reason, schemaPath: `/${reason}` };
};
/** Adds {@link argsError}'s error to `out`. */
export const push = (out: ArgsError[], keys: Keys, reason: string, rest: string) =>
  out.push(argsError(keys, reason, rest));
/** Whether there is room for more errors. */
export const more = (out: ArgsError[]) => out.length < MAX_ERRORS;

export const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
/** `must be one of "a", "b"`, shortened after {@link ENUM_LISTED} values. */
export const oneOfMessage = (values: unknown[]) =>
  `must be one of ${values
    .slice(0, ENUM_LISTED)
    .map((v) => JSON.stringify(v))
    .join(', ')}${values.length > ENUM_LISTED ? `, … (${values.length - ENUM_LISTED} more)` : ''}`;
