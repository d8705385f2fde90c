import type { JsonValue } from '../json.js';

/**
 * Metadata every node may carry, `default` and `examples` typed by the node's value type. It guides
 * the agent only: the kit never fills in a `default`. Arrays are mutable, as in the public SDK's
 * types: a schema written `as const` is not an args schema there either.
 */
export type ToolArgsSchemaMeta<T extends JsonValue = JsonValue> = {
  description?: string;
  default?: T;
  examples?: T[];
};

export type ToolArgsStringSchema = ToolArgsSchemaMeta<string> & {
  type: 'string';
  enum?: string[];
  /** Inclusive, in Unicode code points. */
  minLength?: number;
  maxLength?: number;
  /** An ECMAScript regular expression (with the `u` flag unless it compiles only without), searched, not anchored. */
  pattern?: string;
};

export type ToolArgsNumberSchema = ToolArgsSchemaMeta<number> & {
  type: 'number';
  enum?: number[];
  minimum?: number;
  maximum?: number;
};

export type ToolArgsIntegerSchema = ToolArgsSchemaMeta<number> & {
  type: 'integer';
  enum?: number[];
  minimum?: number;
  maximum?: number;
};

export type ToolArgsBooleanSchema = ToolArgsSchemaMeta<boolean> & {
  type: 'boolean';
  enum?: boolean[];
};

export type ToolArgsArraySchema = ToolArgsSchemaMeta<JsonValue[]> & {
  type: 'array';
  items: ToolArgsSchemaNode;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
};

export type ToolArgsObjectSchema = ToolArgsSchemaMeta<Record<string, JsonValue>> & {
  type: 'object';
  properties?: Record<string, ToolArgsSchemaNode>;
  required?: string[];
};

export type ToolArgsOneOfSchema = ToolArgsSchemaMeta & {
  oneOf: ToolArgsSchemaNode[];
};

export type ToolArgsSchemaNode =
  | ToolArgsStringSchema
  | ToolArgsNumberSchema
  | ToolArgsIntegerSchema
  | ToolArgsBooleanSchema
  | ToolArgsArraySchema
  | ToolArgsObjectSchema
  | ToolArgsOneOfSchema;

/** The root of every tool's args schema: an object node, enforced at compile time. */
export type ToolArgsSchema = ToolArgsObjectSchema;
