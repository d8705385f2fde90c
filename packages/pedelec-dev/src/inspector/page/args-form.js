// @ts-check
// The operator's tool-call form: one input per top-level property of the tool's args schema, kept in
// step with the JSON box that is sent.
/** @import { SchemaNode, ToolManifest } from './types.js' */
import { $, el } from './dom.js';

/**
 * One input per top-level property of the tool's args schema, and the JSON box, which is what gets
 * sent. Each follows the other: a field's edit changes its property in the box (other properties typed
 * there stay), and a hand edit of the box that parses to an object sets every field from it.
 * @type {Array<[string, Field]>}
 */
let fields = []; // [name, { read, write }]

/**
 * Builds the form for `tool` (none: an empty box).
 * @param {ToolManifest | null | undefined} tool
 */
export function buildArgsForm(tool) {
  const fieldset = $('call-fields');
  fieldset.replaceChildren(el('legend', {}, 'Arguments'));
  fields = [];
  if (!tool) {
    $('call-args').value = '{}';
    return;
  }
  const props = tool.argsSchema.properties || {};
  const required = new Set(tool.argsSchema.required || []);
  /** @type {Record<string, unknown>} */
  const args = {};
  for (const [name, node] of Object.entries(props)) {
    const field = controlFor(node, required.has(name));
    const sync = () => fieldToJson(name, field);
    field.control.addEventListener('input', sync);
    field.control.addEventListener('change', sync);
    const label = el('label', {}, `${name}${required.has(name) ? ' *' : ''} `, field.control);
    if (node && node.description) label.title = node.description;
    fieldset.append(label);
    fields.push([name, field]);
    const value = field.read();
    if (value !== undefined) args[name] = value;
  }
  if (fields.length === 0) fieldset.append(el('p', { class: 'muted' }, 'This tool takes no arguments.'));
  $('call-args').value = JSON.stringify(args, null, 2);
}

/**
 * @param {unknown} value
 * @returns {value is Record<string, unknown>}
 */
const isArgsObject = (value) => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The JSON box as an object, or null while it holds something else (being typed, say).
 * @returns {Record<string, unknown> | null}
 */
function argsInBox() {
  try {
    const args = JSON.parse($('call-args').value || '{}');
    return isArgsObject(args) ? args : null;
  } catch {
    return null;
  }
}

/**
 * A field changed: its property in the box follows (the box is rebuilt from the fields if it does not parse).
 * @param {string} name
 * @param {Field} field
 */
function fieldToJson(name, field) {
  let args = argsInBox();
  if (!args) {
    args = {};
    for (const [other, { read }] of fields) if (read() !== undefined) args[other] = read();
  }
  const value = field.read();
  if (value === undefined) delete args[name];
  else args[name] = value;
  $('call-args').value = JSON.stringify(args, null, 2);
}

/** The box was edited by hand: once it parses to an object, every field shows its property (or none). */
export function jsonToFields() {
  const args = argsInBox();
  if (!args) return;
  for (const [name, { write }] of fields) write(Object.hasOwn(args, name) ? args[name] : undefined);
}

/**
 * @typedef {{
 *   control: HTMLInputElement | HTMLSelectElement, read: () => unknown, write: (value: unknown) => void
 * }} Field
 */

/**
 * The input for one property: `read()` gives its value (undefined: not set), `write(value)` shows one.
 * @param {SchemaNode | undefined} node
 * @param {boolean} required
 * @returns {Field}
 */
function controlFor(node, required) {
  node = node || {};
  const asText = (/** @type {unknown} */ value) =>
    value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value);
  if (Array.isArray(node.enum)) {
    const values = node.enum;
    const control = el('select', {}, required ? null : el('option', { value: '' }, '(not set)'));
    values.forEach((v, i) => control.append(el('option', { value: String(i) }, JSON.stringify(v))));
    return {
      control,
      read: () => (control.value === '' ? undefined : values[Number(control.value)]),
      write: (value) => {
        const i = values.findIndex((v) => JSON.stringify(v) === JSON.stringify(value));
        control.value = i < 0 ? '' : String(i);
      },
    };
  }
  switch (node.type) {
    case 'string': {
      const control = el('input', { type: 'text' });
      // A schema may allow any length (up to 2^53); an input's maxLength wraps past 2^31 - 1 and throws.
      if (node.maxLength !== undefined) control.maxLength = Math.min(node.maxLength, 2 ** 31 - 1);
      return {
        control,
        read: () => (control.value === '' && !required ? undefined : control.value),
        write: (value) => (control.value = asText(value)),
      };
    }
    case 'integer':
    case 'number': {
      const control = el('input', { type: 'number', step: node.type === 'integer' ? '1' : 'any' });
      if (node.minimum !== undefined) control.min = String(node.minimum);
      if (node.maximum !== undefined) control.max = String(node.maximum);
      return {
        control,
        read: () => (control.value === '' ? undefined : Number(control.value)),
        write: (value) => (control.value = typeof value === 'number' ? String(value) : ''),
      };
    }
    case 'boolean': {
      const control = el(
        'select',
        {},
        el('option', { value: '' }, '(not set)'),
        el('option', { value: 'true' }, 'true'),
        el('option', { value: 'false' }, 'false'),
      );
      return {
        control,
        read: () => (control.value === '' ? undefined : control.value === 'true'),
        write: (value) => (control.value = typeof value === 'boolean' ? String(value) : ''),
      };
    }
    default: {
      // Arrays, objects and oneOf: typed as JSON.
      const control = el('input', { type: 'text', placeholder: 'JSON' });
      return {
        control,
        read: () => {
          if (control.value.trim() === '') return undefined;
          try {
            return JSON.parse(control.value);
          } catch {
            return control.value;
          }
        },
        write: (value) => (control.value = value === undefined ? '' : JSON.stringify(value)),
      };
    }
  }
}
