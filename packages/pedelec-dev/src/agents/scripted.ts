/**
 * `scripted`: the default agent — local, deterministic, no network. It understands `/tools`,
 * `/call <tool> <json args>`, `/artifact <name> <text…>` (publishes a file), `/session` (the
 * session's settings, for end-to-end tests) and the workspace commands (`/files`, `/read`, `/write`,
 * `/run`: workspace-commands.ts), then the `--script` rules, and otherwise answers with a
 * short note naming the page's tools and how to call them. Every reply streams as several `chat_delta`s.
 */
import type { JsonValue } from 'pedelec-elements/core';
import type { ToolManifest } from '../bridge/manifest.js';
import { fillArgs, fillText, type ScriptRules, type TemplateScope } from './script.js';
import { streamText } from './stream.js';
import { workspaceCommand } from './workspace-commands.js';
import type { AgentSession, AgentSessionInfo, DevAgent, TurnContext } from './types.js';

const CALL = /^\/call\s+(\S+)\s*([\s\S]*)$/;
const ARTIFACT = /^\/artifact(?:\s+(\S+)\s?([\s\S]*))?$/;
const ARTIFACT_IMAGE = /^\/artifact-image(?:\s+(\S+))?\s*$/;
/** `/artifact-image`'s picture: a 1×1 PNG, as an image generator's artifact would arrive. */
const TINY_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);
const ARTIFACT_HINT =
  'Type /artifact <name> <text> to have me publish a file, or /session to see the settings this session was created with.';

/**
 * `/session`'s answer: `Session settings: ` and one JSON object with always the same four keys —
 * `provider` (the code the page asked for), `model` (the model the page named, or `"profile"` when
 * it named none and an effort profile chooses), `effortLevel` and `effort` (`null` when not set).
 * For instance `{"provider":"codex","model":"gpt-5","effortLevel":null,"effort":"high"}`.
 */
export function sessionSettings(info: AgentSessionInfo): string {
  const settings = {
    provider: info.provider,
    model: info.explicitModel ? (info.model ?? null) : 'profile',
    effortLevel: info.effortLevel ?? null,
    effort: info.effort ?? null,
  };
  return `Session settings: ${JSON.stringify(settings)}`;
}

/**
 * How much one example call may hold. A schema's `minItems` and `minLength` are the page's to choose,
 * and nested arrays multiply: five levels of `minItems: 100` (a 271-byte schema) asked for 100⁵ items
 * and took the whole server down. The work is bounded instead, whatever the schema says: at most
 * {@link SAMPLE_BUDGET} characters of JSON per example and {@link SAMPLE_DEPTH} levels of nesting. An
 * example cut short says so; it may then not pass the schema (it is help text, not a contract).
 */
const SAMPLE_BUDGET = 2000;
const SAMPLE_DEPTH = 16;

/** What is left for one example; `shortened` once any bound had to cut it. */
type SampleBudget = { chars: number; shortened: boolean };

/**
 * Charges `chars` to the budget; false when that would overrun it, which also ends the example (so a
 * large literal repeated by `minItems` is not serialized again for every item).
 */
function spend(budget: SampleBudget, chars: number): boolean {
  if (chars > budget.chars) {
    budget.chars = 0;
    budget.shortened = true;
    return false;
  }
  budget.chars -= chars;
  return true;
}

/** A literal of the schema (`default`, `enum[0]`) if its JSON fits the budget, else `null`. */
function literal(value: unknown, budget: SampleBudget): unknown {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    text = undefined; // too deep to serialize: no example of it
  }
  return text !== undefined && spend(budget, text.length) ? value : null;
}

/** A sample value for a schema node, so the help text shows a call that would pass validation. */
function sample(node: unknown, budget: SampleBudget, depth: number): unknown {
  if (typeof node !== 'object' || node === null) return null;
  if (depth > SAMPLE_DEPTH) {
    budget.shortened = true;
    return null;
  }
  const n = node as Record<string, unknown>;
  if (Object.hasOwn(n, 'default')) return literal(n.default, budget);
  if (Array.isArray(n.enum) && n.enum.length > 0) return literal(n.enum[0], budget);
  if (Array.isArray(n.oneOf) && n.oneOf.length > 0) return sample(n.oneOf[0], budget, depth + 1);
  const num = (key: string) => (typeof n[key] === 'number' && Number.isFinite(n[key]) ? n[key] : undefined);
  switch (n.type) {
    case 'string': {
      // Within the lengths (a pattern it cannot know about), and within the budget.
      const minLength = Math.max(num('minLength') ?? 0, 0);
      const maxLength = num('maxLength') ?? Infinity;
      const wanted = Math.min(Math.max(4, minLength), maxLength);
      const length = Math.min(wanted, Math.max(budget.chars - 2, 0));
      if (length < wanted) budget.shortened = true;
      spend(budget, length + 2);
      return 'text'.padEnd(length, 'x').slice(0, length);
    }
    case 'integer':
    case 'number': {
      // 1 when allowed, else the nearest bound (an integer rounded into range).
      const min = num('minimum');
      const max = num('maximum');
      let value = 1;
      if (min !== undefined && value < min) value = n.type === 'integer' ? Math.ceil(min) : min;
      if (max !== undefined && value > max) value = n.type === 'integer' ? Math.floor(max) : max;
      spend(budget, String(value).length);
      return value;
    }
    case 'boolean':
      spend(budget, 4);
      return true;
    case 'array': {
      const items: unknown[] = [];
      const wanted = Math.max(num('minItems') ?? 0, 0);
      // Each item costs at least its comma: the loop ends once the budget is spent.
      while (items.length < wanted && spend(budget, 1)) items.push(sample(n.items, budget, depth + 1));
      return items;
    }
    case 'object':
      return sampleArgs(n, budget, depth + 1);
    default:
      return null;
  }
}

/** Sample args with the required properties only. */
function sampleArgs(schema: Record<string, unknown>, budget: SampleBudget, depth = 1): Record<string, unknown> {
  const props = (schema.properties ?? {}) as Record<string, unknown>;
  const required = Array.isArray(schema.required) ? (schema.required as unknown[]) : [];
  const out: Record<string, unknown> = {};
  for (const name of required) {
    if (typeof name !== 'string' || !Object.hasOwn(props, name)) continue;
    if (!spend(budget, name.length + 4)) break;
    out[name] = sample(props[name], budget, depth);
  }
  return out;
}

function exampleCall(tool: ToolManifest): string {
  const budget: SampleBudget = { chars: SAMPLE_BUDGET, shortened: false };
  const args = JSON.stringify(sampleArgs(tool.argsSchema, budget));
  return `/call ${tool.name} ${args}${budget.shortened ? ' (example shortened: the schema asks for more)' : ''}`;
}

function errorOf(result: JsonValue): { code: string; message: string } | null {
  if (typeof result !== 'object' || result === null || Array.isArray(result)) return null;
  const error = (result as Record<string, JsonValue>).error;
  if (typeof error !== 'object' || error === null || Array.isArray(error)) return null;
  const { code, message } = error as Record<string, JsonValue>;
  return typeof code === 'string' && typeof message === 'string' ? { code, message } : null;
}

function describeResult(tool: string, result: JsonValue): string {
  const error = errorOf(result);
  return error ? `${tool} failed: ${error.code} — ${error.message}` : `${tool} returned ${JSON.stringify(result)}`;
}

class ScriptedSession implements AgentSession {
  constructor(private readonly script: ScriptRules | undefined) {}

  async turn(text: string, ctx: TurnContext): Promise<void> {
    const tools = ctx.session.skills?.tools ?? [];
    const message = text.trim();

    if (/^\/tools\b/.test(message)) return streamText(ctx, this.toolList(tools));
    if (/^\/session\b/.test(message)) return streamText(ctx, sessionSettings(ctx.session));

    const call = CALL.exec(message);
    if (call) return this.slashCall(ctx, call[1], call[2].trim());

    const image = ARTIFACT_IMAGE.exec(message);
    if (image) return this.slashArtifact(ctx, image[1] ?? 'image.png', TINY_PNG, 'image/png');
    const artifact = ARTIFACT.exec(message);
    if (artifact) return this.slashArtifact(ctx, artifact[1], artifact[2] ?? '');
    if (await workspaceCommand(ctx, message)) return;

    for (const rule of this.script?.rules ?? []) {
      const match = rule.regex.exec(text);
      if (!match) continue;
      const scope: TemplateScope = { text, match: [...match], result: undefined, results: [] };
      for (const step of rule.steps) {
        if (ctx.signal.aborted) return;
        if ('say' in step) {
          await streamText(ctx, fillText(step.say, scope));
        } else {
          scope.result = await ctx.callTool(step.call, fillArgs(step.args, scope));
          scope.results.push(scope.result);
        }
      }
      return;
    }

    return streamText(ctx, this.help(tools));
  }

  private async slashCall(ctx: TurnContext, tool: string, rawArgs: string): Promise<void> {
    let args: unknown = {};
    if (rawArgs !== '') {
      try {
        args = JSON.parse(rawArgs);
      } catch (e) {
        return streamText(
          ctx,
          `I could not read the arguments as JSON (${(e as Error).message}). Try: /call ${tool} {"name": "value"}`,
        );
      }
    }
    await streamText(ctx, `Calling ${tool} with ${JSON.stringify(args)}…\n`);
    const result = await ctx.callTool(tool, args);
    await streamText(ctx, describeResult(tool, result));
  }

  /** `/artifact <name> <text…>`: publishes the text as a file; a refused name is explained, not thrown. */
  private async slashArtifact(
    ctx: TurnContext,
    name: string | undefined,
    content: string | Uint8Array,
    mimeType?: string,
  ): Promise<void> {
    if (name === undefined)
      return streamText(ctx, `Give the file a name and its text: /artifact notes.txt Hello from the agent`);
    let published;
    try {
      published = await ctx.publishArtifact(name, content, mimeType);
    } catch (error) {
      if (ctx.signal.aborted) return;
      const { code, message } = error as { code?: string; message?: string };
      return streamText(ctx, `I could not publish ${name}: ${code ?? 'ERROR'} — ${message ?? String(error)}`);
    }
    await streamText(
      ctx,
      `Published ${published.name} (${published.sizeBytes} bytes, ${published.mimeType}) at ${published.path}.`,
    );
  }

  private toolList(tools: readonly ToolManifest[]): string {
    if (tools.length === 0) return 'This page gives me no tools.';
    const lines = tools.map((t) => `- ${t.name}: ${t.description} Example: ${exampleCall(t)}`);
    return `This page gives me ${tools.length} tool${tools.length === 1 ? '' : 's'}:\n${lines.join('\n')}`;
  }

  private help(tools: readonly ToolManifest[]): string {
    const intro = "I'm the scripted development agent: I follow commands, not conversation.";
    if (tools.length === 0)
      return `${intro} This page gives me no tools, so there is nothing for me to call yet. ${ARTIFACT_HINT}`;
    const names = tools.map((t) => t.name).join(', ');
    return (
      `${intro} This page gives me these tools: ${names}. Type /tools to see them, or /call <tool> <json args> to call one, ` +
      `e.g. ${exampleCall(tools[0])}. ${ARTIFACT_HINT}`
    );
  }
}

export function scriptedAgent(script?: ScriptRules): DevAgent {
  return {
    code: 'scripted',
    name: 'Scripted agent (pedelec-dev)',
    defaultModel: 'scripted',
    openSession: () => new ScriptedSession(script),
  };
}
