/**
 * The keywords of the Pedelec Tool Args Schema (args-schema.md): which belong to each kind of node,
 * and the shape each one's value must have.
 */
import { isPlainObject } from '../json.js';

/** A predicate over a value. */
export type Test = (v: unknown) => boolean;

const NON_NEGATIVE = 'a non-negative integer';
const FINITE = 'a finite number';
const A_STRING = 'a string';
const NON_EMPTY = 'a non-empty array';
const isNonNegative: Test = (v) => Number.isInteger(v) && (v as number) >= 0;
const isString: Test = (v) => typeof v === 'string';
const isBoolean: Test = (v) => typeof v === 'boolean';
const isNonEmpty: Test = (v) => Array.isArray(v) && v.length > 0;
const any: Test = () => true;

/**
 * The shape each known keyword's value must have, in the order a node's keywords are checked
 * (the first error wins). `type` is checked first, on its own; `default` may be any JSON value.
 */
export const RULES: Record<string, [ok: Test, what: string]> = {
  description: [isString, A_STRING],
  examples: [Array.isArray, 'an array'],
  default: [any, ''],
  enum: [isNonEmpty, NON_EMPTY],
  minLength: [isNonNegative, NON_NEGATIVE],
  maxLength: [isNonNegative, NON_NEGATIVE],
  minimum: [Number.isFinite, FINITE],
  maximum: [Number.isFinite, FINITE],
  minItems: [isNonNegative, NON_NEGATIVE],
  maxItems: [isNonNegative, NON_NEGATIVE],
  pattern: [isString, A_STRING],
  uniqueItems: [isBoolean, 'a boolean'],
  items: [any, ''], // a node: checked as it is compiled
  properties: [isPlainObject, 'an object'],
  required: [Array.isArray, 'an array of strings'],
  oneOf: [isNonEmpty, NON_EMPTY],
};

/**
 * Each kind of node: its keywords besides metadata, and what its values are (so also its `enum`
 * values, when it has `enum`). `oneOf` is not a type.
 */
export const KINDS: Record<string, [keywords: string[], is?: Test, what?: string]> = {
  string: [['enum', 'minLength', 'maxLength', 'pattern'], isString, A_STRING],
  number: [['enum', 'minimum', 'maximum'], Number.isFinite, FINITE],
  integer: [['enum', 'minimum', 'maximum'], Number.isInteger, 'an integer'],
  boolean: [['enum'], isBoolean, 'a boolean'],
  array: [['minItems', 'maxItems', 'uniqueItems', 'items'], Array.isArray, 'an array'],
  object: [['properties', 'required'], isPlainObject, 'an object'],
  oneOf: [['oneOf']],
};
/** The values of `type`. */
export const TYPES = ['string', 'number', 'integer', 'boolean', 'array', 'object'];
/** Each kind's keywords, metadata first, in checking order. */
export const KEYWORDS: Record<string, string[]> = {};
for (const kind in KINDS) KEYWORDS[kind] = ['description', 'examples', 'default', ...KINDS[kind][0]];
