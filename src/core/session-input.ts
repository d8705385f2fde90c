/**
 * What `createSession` and `resumeSession` take, and how it is read (docs/design/sdk-0.4.md, "Creating
 * sessions"): anything the page got wrong is an `INVALID_INPUT` with the reason, before a request is
 * made.
 */
import type { BridgeRequestType } from './bridge-messages.js';
import { invalidInput, normalizeError, type PedelecError } from './errors.js';
import { isFilled, isObject } from './json.js';
import { normalizeSkills, type NormalizedSkills, type SkillsInput, type ToolDefinition } from './tools.js';
import { type Toolbox } from './toolbox.js';
import type { PedelecSession } from './session.js';
import type { PedelecWorkspace } from './workspace.js';
import type { Effort, EffortLevel, ProviderCode } from './types.js';

/** What both ways of creating a session take. */
type SessionBasics<TTools extends readonly ToolDefinition[]> = {
  /** The provider; omitted, the user's default provider. */
  provider?: ProviderCode;
  skills?: SkillsInput<TTools>;
  /** End the session when the page's connection goes (default true). */
  autoEndOnDisconnect?: boolean;
};

/**
 * What `createSession` takes — one of two modes. Profile mode (no `model`): Pedelec's effort profile
 * for the provider chooses the model, at `effortLevel` (default `"default"`). Explicit model mode: the
 * given `model`, with the provider's own `effort` when given. `effortLevel` with a model, or `effort`
 * without one, is a compile error (and `INVALID_INPUT` at run time).
 */
export type CreateSessionInput<TTools extends readonly ToolDefinition[] = readonly ToolDefinition[]> =
  | (SessionBasics<TTools> & { model?: never; effort?: never; effortLevel?: EffortLevel })
  | (SessionBasics<TTools> & { model: string; effort?: Effort; effortLevel?: never });

/** (ours) Options for `resumeSession`: what Core does not return, and the page's handlers. */
export type ResumeSessionOptions<TTools extends readonly ToolDefinition[] = readonly ToolDefinition[]> = {
  provider?: ProviderCode;
  model?: string;
  /** Re-attaches inline handlers and validators; nothing is sent (Core keeps the manifest it has). */
  skills?: SkillsInput<TTools>;
};

/** @internal How a `<pedelec-session>` shares its toolbox with the sessions it creates, and where it creates them. */
export type SessionWiring = { toolbox?: Toolbox; requestTimeoutMs?: number; workspace?: PedelecWorkspace };

/** @internal What a session needs from its client; keeps the session testable and the client private. */
export interface SessionBridge {
  /** A property, not a method: the client hands the same function to its workspaces. */
  request: <T = unknown>(type: BridgeRequestType, payload?: Record<string, unknown>) => Promise<T>;
  /** What arrives for this session is no longer routed to it (the page ended it). */
  release(session: PedelecSession<string>): void;
  /** What arrives for this session is routed to it again (`resume()`). */
  register(session: PedelecSession<string>): void;
  warn(warning: PedelecError): void;
}

/** @internal What a session is made with. */
export type SessionInit = {
  sessionId: string;
  provider: string;
  model: string | undefined;
  effortLevel: EffortLevel | undefined;
  toolbox: Toolbox;
  workspace: PedelecWorkspace;
  autoEndOnDisconnect: boolean;
};

const EFFORT_LEVELS: readonly string[] = ['default', 'low', 'high'] satisfies EffortLevel[];
const EFFORTS: readonly string[] = ['low', 'medium', 'high', 'xhigh', 'max'] satisfies Effort[];

/** A `createSession` input, read: the provider when one was given, and the mode's settings. */
export type ReadCreateInput = {
  skills: NormalizedSkills | undefined;
  provider: string | undefined;
  autoEndOnDisconnect: boolean;
} & (
  | { model: undefined; effort: undefined; effortLevel: EffortLevel }
  | { model: string; effort: Effort | undefined; effortLevel: undefined }
);

/**
 * A `createSession` input read as the public SDK 0.4.6 reads it, in its order: a string `provider`
 * trimmed (a blank or non-string one is none: the default provider is used); `model`, when not
 * `undefined`, a non-blank string, trimmed; the mode's effort setting checked; then the skills.
 */
export function readCreateInput(input: unknown): ReadCreateInput {
  try {
    if (!isObject(input)) throw invalidInput('createSession input must be an object');
    const { provider, model, effort, effortLevel } = input;
    const read = {
      provider: (typeof provider === 'string' && provider.trim()) || undefined,
      autoEndOnDisconnect: input.autoEndOnDisconnect !== false,
    };
    if (model !== undefined) {
      if (!isFilled(model)) throw invalidInput('model must be a non-empty string when provided');
      if (effortLevel !== undefined) throw invalidInput('effortLevel cannot be combined with model');
      if (effort !== undefined && !EFFORTS.includes(effort as string))
        throw invalidInput('effort must be one of low, medium, high, xhigh, or max');
      const skills = normalizeSkills(input.skills);
      return { ...read, skills, model: model.trim(), effort: effort as Effort | undefined, effortLevel: undefined };
    }
    if (effort !== undefined) throw invalidInput('effort requires model');
    if (effortLevel !== undefined && !EFFORT_LEVELS.includes(effortLevel as string))
      throw invalidInput('effortLevel must be one of default, low, or high');
    const skills = normalizeSkills(input.skills);
    const level = (effortLevel ?? 'default') as EffortLevel;
    return { ...read, skills, model: undefined, effort: undefined, effortLevel: level };
  } catch (error) {
    throw normalizeError(error, 'INVALID_INPUT', 'createSession input is invalid');
  }
}

/** The tools of a `resumeSession` call, once its session id is known to be one. */
export function readResumeSkills(sessionId: unknown, options: ResumeSessionOptions): NormalizedSkills | undefined {
  if (!isFilled(sessionId)) throw invalidInput('sessionId is required');
  try {
    return normalizeSkills(options.skills);
  } catch (error) {
    throw normalizeError(error, 'INVALID_INPUT', 'resumeSession options are invalid');
  }
}
