/**
 * What a `<pedelec-session>`'s inputs mean: which bridge, where `persist` keeps its record, what
 * makes a running session stale, and what a start sends ({@link StartPlan}). Plain functions of the
 * element's attributes and properties.
 */
import {
  type EffortLevel,
  type PedelecError,
  type PedelecSession,
  type PedelecWorkspace,
  type SerializableSkillsManifest,
  type SkillsInput,
} from '../../core/index.js';
import { pedelecError } from '../../core/errors.js';
import { type NormalizedTool } from '../../core/tools.js';
import { canonicalJson } from '../../core/json.js';
import { bridgeKey, parseBridge, type BridgeConfig } from '../bridge-url.js';
import type { SessionDeclarations } from './declarations.js';
import type { ElementToolbox } from './element-toolbox.js';
import { hashText, persistKey } from './persist.js';
import type { SessionConfig } from './staleness.js';

/** What a start sends, as the page declares it when the start begins. */
export type StartPlan = {
  bridge: BridgeConfig;
  bridgeTimeoutMs: number | undefined;
  provider: string;
  model: string;
  effortLevel: string;
  effort: string;
  skills: SkillsInput | undefined;
  /** The declared tools, normalized: what the toolbox answers once the session exists. */
  tools: NormalizedTool[];
  toolbox: ElementToolbox;
  validateArgs: boolean;
  /** `persist`: where the record lives (null without `persist`), and the hash of the manifest it names. */
  persistKey: string | null;
  manifestHash: string;
  /** `resume-id`: a session to resume. */
  resumeId: string | null;
  /** The workspace the session is created in (none: one Pedelec manages). */
  workspace: PedelecWorkspace | null;
  /** What the session is created with, to tell later changes (staleness). */
  manifest: SerializableSkillsManifest | undefined;
  config: SessionConfig;
};

/**
 * The element properties a build reads: the tools, the bridge and the configuration a session is
 * created with; and what WebMCP's registrations, brought up to date after each build, read.
 */
export const BUILD_INPUTS: ReadonlySet<PropertyKey> = new Set([
  'tools',
  'toolApprovalTimeoutMs',
  'extensionId',
  'provider',
  'model',
  'effortLevel',
  'effort',
  'guidance',
  'bridge',
  'noValidate',
  'workspace',
]);

/** The inputs of a session element that these read. */
export interface SessionInputs {
  id: string;
  readonly provider: string | null;
  readonly model: string | null;
  readonly effortLevel: string | null;
  readonly effort: string | null;
  readonly bridge: string | undefined;
  readonly extensionId: string | null;
  readonly bridgeTimeoutMs: number | undefined;
  readonly persist: boolean;
  readonly noValidate: boolean;
  readonly resumeId: string | null;
  readonly workspace: PedelecWorkspace | null;
}

/** The session a local call is made in: the element's session, or (before one exists) its inputs. */
export function localSession(inputs: SessionInputs, session: PedelecSession | null) {
  return {
    sessionId: session?.sessionId ?? '',
    provider: session?.provider ?? inputs.provider ?? '',
    effortLevel: session ? session.effortLevel : effortLevelOf(inputs),
    model: session?.model ?? inputs.model ?? undefined,
    sessionCreatedAt: session?.sessionCreatedAt ?? Date.now(),
  };
}

/** The effort level a session of these inputs has: the given one in profile mode (no model), or none. */
function effortLevelOf(inputs: SessionInputs): EffortLevel | undefined {
  if (inputs.model) return undefined;
  return (inputs.effortLevel || 'default') as EffortLevel;
}

/** The bridge as configured; `scripted`: the `bridge` property was set from script (any host allowed). */
export function bridgeOf(inputs: SessionInputs, scripted: boolean): BridgeConfig | PedelecError {
  return parseBridge(inputs.bridge, scripted, inputs.extensionId ?? undefined);
}

/** What makes a running session stale when it changes. */
export function configOf(
  inputs: SessionInputs,
  bridge: BridgeConfig | PedelecError,
  manifest: SerializableSkillsManifest | undefined,
): SessionConfig {
  return {
    provider: inputs.provider ?? '',
    model: inputs.model ?? '',
    'effort-level': inputs.effortLevel ?? '',
    effort: inputs.effort ?? '',
    guidance: manifest?.guidance ?? '',
    // The bridge as it is used: parsed (a blank attribute is the extension, whose id then counts).
    bridge: 'code' in bridge ? (inputs.bridge ?? '') : bridgeKey(bridge),
    novalidate: String(inputs.noValidate),
    workspace: inputs.workspace?.workspaceId ?? '',
  };
}

/** Where `persist` keeps its record: `pedelec-elements:v1:<bridge or 'ext:'+extensionId>:<id or path>`. */
export function persistKeyOf(inputs: SessionInputs, bridge: BridgeConfig | PedelecError): string | null {
  if (!inputs.persist || 'code' in bridge) return null;
  const scope = inputs.id || (globalThis.location?.pathname ?? '');
  return persistKey(bridge.kind === 'websocket' ? inputs.bridge!.trim() : bridgeKey(bridge), scope);
}

/**
 * What a start sends, taken once from what is declared now; or why it cannot start: a bad bridge,
 * guidance given twice, or `persist` with a key another connected session element uses.
 */
export function planOf(
  inputs: SessionInputs,
  bridge: BridgeConfig | PedelecError,
  declarations: SessionDeclarations,
  toolbox: ElementToolbox,
  keyTaken: (key: string) => boolean,
): StartPlan | PedelecError {
  declarations.upToDate();
  if ('code' in bridge) return bridge;
  if (declarations.guidanceError) return declarations.guidanceError;
  const key = persistKeyOf(inputs, bridge);
  if (key && keyTaken(key)) {
    const message = `two persisted sessions share the storage key ${key}; give them distinct ids`;
    return pedelecError('INVALID_INPUT', message, { key });
  }
  const { built, manifest } = declarations;
  return {
    bridge,
    bridgeTimeoutMs: inputs.bridgeTimeoutMs,
    provider: inputs.provider ?? '',
    model: inputs.model ?? '',
    effortLevel: inputs.effortLevel ?? '',
    effort: inputs.effort ?? '',
    skills: manifest && { guidance: manifest.guidance, tools: built.tools.map((t) => ({ ...t.tool.manifest })) },
    tools: built.tools.map((t) => t.tool),
    toolbox,
    validateArgs: !inputs.noValidate,
    persistKey: key,
    manifestHash: hashText(canonicalJson(manifest ?? null)),
    resumeId: inputs.resumeId || null,
    workspace: inputs.workspace,
    manifest,
    config: configOf(inputs, bridge, manifest),
  };
}
