import type { JsonValue } from '../json.js';

/**
 * Metadata every node may carry. It guides the agent only: the kit never fills in a `default`.
 */
export type ToolArgsSchemaMeta = {
  description?: string;
  default?: JsonValue;
  examples?: readonly JsonValue[];
};

export type ToolArgsStringSchema = ToolArgsSchemaMeta & {
  type: 'string';
  enum?: readonly string[];
  /** Inclusive, in Unicode code points. */
  minLength?: number;
  maxLength?: number;
  /** An ECMAScript regular expression (with the `u` flag unless it compiles only without), searched, not anchored. */
  pattern?: string;
};

export type ToolArgsNumberSchema = ToolArgsSchemaMeta & {
  type: 'number';
  enum?: readonly number[];
  minimum?: number;
  maximum?: number;
};

export type ToolArgsIntegerSchema = ToolArgsSchemaMeta & {
  type: 'integer';
  enum?: readonly number[];
  minimum?: number;
  maximum?: number;
};

export type ToolArgsBooleanSchema = ToolArgsSchemaMeta & {
  type: 'boolean';
  enum?: readonly boolean[];
};

export type ToolArgsArraySchema = ToolArgsSchemaMeta & {
  type: 'array';
  items: ToolArgsSchemaNode;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
};

export type ToolArgsObjectSchema = ToolArgsSchemaMeta & {
  type: 'object';
  properties?: Record<string, ToolArgsSchemaNode>;
  required?: readonly string[];
};

export type ToolArgsOneOfSchema = ToolArgsSchemaMeta & {
  oneOf: readonly ToolArgsSchemaNode[];
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
