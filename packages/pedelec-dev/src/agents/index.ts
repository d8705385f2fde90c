/**
 * The dev agents. One of them (`--agent`) serves every session; the others are listed so a page can
 * see what this Core offers. Adding an agent is one entry in {@link AGENTS}; the server only ever
 * sees {@link DevAgent}s.
 */
import { DevCoreError } from '../errors.js';
import { openaiAgent } from './openai.js';
import { OperatorDesk, operatorAgent } from './operator.js';
import type { ScriptRules } from './script.js';
import { scriptedAgent } from './scripted.js';
import type { DevAgent } from './types.js';

/** What an agent may need to start. `env` is where an agent reads its configuration (keys stay here). */
export type AgentDeps = {
  script: ScriptRules | undefined;
  desk: OperatorDesk;
  env: Readonly<Record<string, string | undefined>>;
};

/** An agent, or the reason it cannot run (shown in `list_providers` and at start). */
type AgentEntry = { code: string; name: string; create(deps: AgentDeps): DevAgent | { unavailable: string } };

const AGENTS: readonly AgentEntry[] = [
  { code: 'scripted', name: 'Scripted agent (pedelec-dev)', create: (deps) => scriptedAgent(deps.script) },
  { code: 'operator', name: 'Operator (a person, from the inspector)', create: (deps) => operatorAgent(deps.desk) },
  { code: 'openai', name: 'OpenAI-compatible endpoint', create: (deps) => openaiAgent(deps.env) },
];

export const DEV_AGENT_CODES: readonly string[] = AGENTS.map((a) => a.code);

export type ProviderInfo = { name: string; code: string; available: boolean; error: string | null };

export class AgentDirectory {
  private readonly agents = new Map<string, DevAgent>();
  private readonly unavailable = new Map<string, string>();
  private readonly selected: DevAgent;

  /** Throws `AGENT_UNAVAILABLE` when `selected` is unknown or cannot run. */
  constructor(selected: string, deps: AgentDeps) {
    for (const entry of AGENTS) {
      const made = entry.create(deps);
      if ('unavailable' in made) this.unavailable.set(entry.code, made.unavailable);
      else this.agents.set(entry.code, made);
    }
    const agent = this.agents.get(selected);
    if (!agent) {
      const why = this.unavailable.get(selected) ?? `unknown agent (choose one of ${DEV_AGENT_CODES.join(', ')})`;
      throw new DevCoreError('AGENT_UNAVAILABLE', `--agent ${selected}: ${why}`);
    }
    this.selected = agent;
  }

  get selectedCode(): string {
    return this.selected.code;
  }

  /**
   * The agent serving a provider code: always the selected one, so a page written for production
   * (`provider="codex"`) runs unchanged, and `--agent operator` takes over pages that name `scripted`.
   * `strict` refuses codes other than the dev agents' own.
   */
  resolve(provider: string, strict: boolean): DevAgent {
    if (strict && !DEV_AGENT_CODES.includes(provider)) {
      throw new DevCoreError(
        'PROVIDER_NOT_FOUND',
        `pedelec-dev runs with --strict-providers and serves only ${DEV_AGENT_CODES.join(', ')}`,
        {
          provider,
        },
      );
    }
    return this.selected;
  }

  providers(): ProviderInfo[] {
    return AGENTS.map(({ code, name }) => {
      const agent = this.agents.get(code);
      return {
        name: agent?.name ?? name,
        code,
        available: agent !== undefined,
        error: agent ? null : (this.unavailable.get(code) ?? null),
      };
    });
  }

  settings(): { defaultProvider: string; defaultModels: Record<string, string> } {
    return { defaultProvider: this.selected.code, defaultModels: { [this.selected.code]: this.selected.defaultModel } };
  }

  async close(): Promise<void> {
    for (const agent of this.agents.values()) {
      try {
        await agent.close?.();
      } catch {
        // Stopping continues whatever one agent does.
      }
    }
  }
}

export { OperatorDesk } from './operator.js';
export { AgentError } from './types.js';
export type { AgentSession, AgentSessionInfo, DevAgent, PublishedArtifact, TurnContext } from './types.js';
