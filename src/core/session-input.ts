/**
 * What `createSession` and `resumeSession` take, and how it is read: anything the page got wrong is
 * an `INVALID_INPUT` with the reason, before a request is made.
 */
import { invalidInput, normalizeError } from './errors.js';
import { isObject } from './json.js';
import {
  normalizeSkills,
  type NormalizedSkills,
  type SkillsInput,
  type Toolbox,
  type ToolDefinition,
} from './tools.js';
import type { ProviderCode } from './types.js';

/**
 * What `createSession` takes. A union, so that `model` without `provider` is a compile error.
 */
export type CreateSessionInput<TTools extends readonly ToolDefinition[] = readonly ToolDefinition[]> =
  | ({
      provider?: undefined;
      model?: undefined;
      skills?: SkillsInput<TTools>;
      autoEndOnDisconnect?: boolean;
    } & EffortInput)
  | ({
      provider: ProviderCode;
      model?: string;
      skills?: SkillsInput<TTools>;
      autoEndOnDisconnect?: boolean;
    } & EffortInput);

/**
 * (ours) Passed through to a current Desktop as given (it checks them): `effortLevel` picks one of the
 * provider's effort profiles, `effort` goes with an explicit `model`.
 */
export type EffortInput = { effortLevel?: string; effort?: string };

/** (ours) Options for `resumeSession`: what Core does not return, and the page's handlers. */
export type ResumeSessionOptions<TTools extends readonly ToolDefinition[] = readonly ToolDefinition[]> = {
  provider?: ProviderCode;
  model?: string;
  /** Re-attaches inline handlers and validators; nothing is sent (Core keeps the manifest it has). */
  skills?: SkillsInput<TTools>;
};

/** @internal How a `<pedelec-session>` shares its toolbox with the sessions it creates. */
export type SessionWiring = { toolbox?: Toolbox; requestTimeoutMs?: number };

/**
 * A `createSession` input read as the public SDK reads it: its tools; a string `provider` trimmed, and
 * a blank or non-string one none at all (the default provider is used); `model` given whenever it is
 * not `undefined`, and used only when it is a string (even `""`) — otherwise the provider's default.
 */
export function readCreateInput(input: unknown): {
  skills: NormalizedSkills | undefined;
  effort: EffortInput;
  provider: string | undefined;
  model: string | undefined;
} {
  let skills: NormalizedSkills | undefined;
  let provider: string | undefined;
  let model: unknown;
  try {
    if (!isObject(input)) throw invalidInput('createSession input must be an object');
    skills = normalizeSkills(input.skills);
    ({ provider, model } = input);
    provider = (typeof provider === 'string' && provider.trim()) || undefined;
    if (model !== undefined && !provider) throw invalidInput('model cannot be provided without provider');
  } catch (error) {
    throw normalizeError(error, 'INVALID_INPUT', 'createSession input is invalid');
  }
  const effort: EffortInput = {};
  for (const key of ['effortLevel', 'effort'] as const) {
    const value = input[key];
    if (value === undefined) continue;
    if (typeof value !== 'string') throw invalidInput(`${key} must be a string`);
    effort[key] = value;
  }
  return { skills, effort, provider, model: typeof model === 'string' ? model : undefined };
}

/** The tools of a `resumeSession` call, once its session id is known to be one. */
export function readResumeSkills(sessionId: unknown, options: ResumeSessionOptions): NormalizedSkills | undefined {
  if (typeof sessionId !== 'string' || !sessionId.trim()) throw invalidInput('sessionId must be a non-empty string');
  try {
    return normalizeSkills(options.skills);
  } catch (error) {
    throw normalizeError(error, 'INVALID_INPUT', 'resumeSession options are invalid');
  }
}
