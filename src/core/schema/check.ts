/**
 * Well-formedness of a tool's `argsSchema` (args-schema.md "Well-formedness"): checked in the same
 * walk that compiles the validator, in `compile.ts`.
 */
export { checkArgsSchema, MAX_SCHEMA_DEPTH, type SchemaProblem } from './compile.js';
