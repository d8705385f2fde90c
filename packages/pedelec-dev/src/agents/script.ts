/**
 * The scripted agent's rules file (`--script FILE`): JSON only, first matching rule wins.
 *
 *   {"rules":[{"match":{"regex":"count"},
 *              "steps":[{"say":"Counting…"},{"call":"update_counter","args":{"delta":1}},{"say":"Now {{result.value}}"}]}]}
 *
 * Templates `{{…}}` read `text` (the user's message), `match.N` (regex groups), `result` (the last
 * call's result) and `results.N` (every call's result, in order), with dotted paths into them. A string
 * argument that is exactly one template keeps the value's JSON type (`{"delta":"{{match.1}}"}` stays a
 * string, `{"item":"{{result}}"}` an object). A bad file is refused at start with the path of the problem.
 */
import { readFileSync } from 'node:fs';
import { isPlainObject } from 'pedelec-elements/protocol';
import { DevCoreError } from '../errors.js';

export type ScriptStep = { say: string } | { call: string; args: unknown };
export type ScriptRule = { regex: RegExp; steps: ScriptStep[] };
export type ScriptRules = { rules: ScriptRule[] };

/** What templates can read during one reply. */
export type TemplateScope = { text: string; match: string[]; result: unknown; results: unknown[] };

function bad(where: string, message: string): never {
  throw new DevCoreError('SCRIPT_INVALID', `${where}: ${message}`);
}

/** Checks a parsed rules document; `source` names it in error messages. */
export function parseScript(doc: unknown, source = 'script'): ScriptRules {
  if (!isPlainObject(doc)) bad(source, 'must be a JSON object with a "rules" array');
  if (!Array.isArray(doc.rules)) bad(`${source}: rules`, 'must be an array');
  const rules = doc.rules.map((rule: unknown, i: number): ScriptRule => {
    const at = `${source}: rules[${i}]`;
    if (!isPlainObject(rule)) bad(at, 'must be an object with "match" and "steps"');
    const match = rule.match;
    if (!isPlainObject(match) || typeof match.regex !== 'string') bad(`${at}.match`, 'must be {"regex": "<pattern>"}');
    const flags = match.flags === undefined ? 'i' : match.flags;
    if (typeof flags !== 'string') bad(`${at}.match.flags`, 'must be a string of RegExp flags');
    let regex: RegExp;
    try {
      // Without g and y: one RegExp serves every message of every session, and with either flag its
      // lastIndex would carry over, so a rule would match every other time.
      regex = new RegExp(match.regex, flags.replace(/[gy]/g, ''));
    } catch (e) {
      bad(`${at}.match.regex`, `is not a valid regular expression (${(e as Error).message})`);
    }
    if (!Array.isArray(rule.steps) || rule.steps.length === 0) bad(`${at}.steps`, 'must be a non-empty array');
    const steps = rule.steps.map((step: unknown, j: number): ScriptStep => {
      const sat = `${at}.steps[${j}]`;
      if (!isPlainObject(step)) bad(sat, 'must be an object: {"say": …} or {"call": …, "args": …}');
      const hasSay = Object.hasOwn(step, 'say');
      const hasCall = Object.hasOwn(step, 'call');
      if (hasSay === hasCall) bad(sat, 'must have exactly one of "say" and "call"');
      if (hasSay) {
        if (typeof step.say !== 'string') bad(`${sat}.say`, 'must be a string');
        return { say: step.say };
      }
      if (typeof step.call !== 'string' || step.call === '') bad(`${sat}.call`, 'must be a tool name');
      if (step.args !== undefined && !isPlainObject(step.args)) bad(`${sat}.args`, 'must be an object');
      return { call: step.call, args: step.args ?? {} };
    });
    return { regex, steps };
  });
  return { rules };
}

/** Reads and checks a rules file; every failure is a `SCRIPT_INVALID` error naming the file. */
export function loadScriptFile(file: string): ScriptRules {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new DevCoreError(
      'SCRIPT_INVALID',
      `${file}: cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
    );
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new DevCoreError('SCRIPT_INVALID', `${file}: is not valid JSON (${(e as Error).message})`);
  }
  return parseScript(doc, file);
}

const TEMPLATE = /\{\{\s*([A-Za-z0-9_.$-]+)\s*\}\}/g;
const WHOLE_TEMPLATE = /^\{\{\s*([A-Za-z0-9_.$-]+)\s*\}\}$/;

/** Reads a dotted path (`result.items.0.id`) from the scope; own properties only. */
export function lookup(scope: TemplateScope, path: string): unknown {
  let value: unknown = scope;
  for (const key of path.split('.')) {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

function show(value: unknown): string {
  if (value === undefined) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** Fills `{{…}}` in a `say` text. Missing values become empty text. */
export function fillText(template: string, scope: TemplateScope): string {
  return template.replace(TEMPLATE, (_, path: string) => show(lookup(scope, path)));
}

/** Fills templates in every string of a `call`'s args (a new value; the rule is never modified). */
export function fillArgs(value: unknown, scope: TemplateScope): unknown {
  if (typeof value === 'string') {
    const whole = WHOLE_TEMPLATE.exec(value);
    if (whole) return lookup(scope, whole[1]) ?? null;
    return fillText(value, scope);
  }
  if (Array.isArray(value)) return value.map((item) => fillArgs(item, scope));
  if (isPlainObject(value)) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = fillArgs(item, scope);
    return out;
  }
  return value;
}
