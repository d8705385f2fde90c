/**
 * `scripted`: the default agent — local, deterministic, no network. It understands `/tools`,
 * `/call <tool> <json args>` and `/artifact <name> <text…>` (publishes a file), then the `--script`
 * rules, and otherwise answers with a short note naming the page's tools and how to call them. Every
 * reply streams as several `chat_delta`s.
 */
import type { JsonValue } from '../../core/json.js';
import type { ToolManifest } from '../manifest.js';
import { fillArgs, fillText, type ScriptRules, type TemplateScope } from './script.js';
import { streamText } from './stream.js';
import type { AgentSession, DevAgent, TurnContext } from './types.js';

const CALL = /^\/call\s+(\S+)\s*([\s\S]*)$/;
const ARTIFACT = /^\/artifact(?:\s+(\S+)\s?([\s\S]*))?$/;
const ARTIFACT_HINT = 'Type /artifact <name> <text> to have me publish a file.';

/** A sample value for a schema node, so the help text shows a call that would pass validation. */
function sample(node: unknown): unknown {
  if (typeof node !== 'object' || node === null) return null;
  const n = node as Record<string, unknown>;
  if (Object.hasOwn(n, 'default')) return n.default;
  if (Array.isArray(n.enum) && n.enum.length > 0) return n.enum[0];
  if (Array.isArray(n.oneOf) && n.oneOf.length > 0) return sample(n.oneOf[0]);
  const num = (key: string) => (typeof n[key] === 'number' && Number.isFinite(n[key]) ? (n[key] as number) : undefined);
  switch (n.type) {
    case 'string': {
      // Within the lengths (a pattern it cannot know about).
      const text = 'text'.padEnd(num('minLength') ?? 0, 'x');
      return text.slice(0, Math.max(num('maxLength') ?? text.length, num('minLength') ?? 0));
    }
    case 'integer':
    case 'number': {
      // 1 when allowed, else the nearest bound (an integer rounded into range).
      const min = num('minimum');
      const max = num('maximum');
      let value = 1;
      if (min !== undefined && value < min) value = n.type === 'integer' ? Math.ceil(min) : min;
      if (max !== undefined && value > max) value = n.type === 'integer' ? Math.floor(max) : max;
      return value;
    }
    case 'boolean':
      return true;
    case 'array':
      return Array.from({ length: Math.min(num('minItems') ?? 0, 100) }, () => sample(n.items));
    case 'object':
      return sampleArgs(n);
    default:
      return null;
  }
}

/** Sample args with the required properties only. */
function sampleArgs(schema: Record<string, unknown>): Record<string, unknown> {
  const props = (schema.properties ?? {}) as Record<string, unknown>;
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  const out: Record<string, unknown> = {};
  for (const name of required) if (Object.hasOwn(props, name)) out[name] = sample(props[name]);
  return out;
}

function exampleCall(tool: ToolManifest): string {
  return `/call ${tool.name} ${JSON.stringify(sampleArgs(tool.argsSchema as unknown as Record<string, unknown>))}`;
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

    const call = CALL.exec(message);
    if (call) return this.slashCall(ctx, call[1], call[2].trim());

    const artifact = ARTIFACT.exec(message);
    if (artifact) return this.slashArtifact(ctx, artifact[1], artifact[2] ?? '');

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
  private async slashArtifact(ctx: TurnContext, name: string | undefined, content: string): Promise<void> {
    if (name === undefined)
      return streamText(ctx, `Give the file a name and its text: /artifact notes.txt Hello from the agent`);
    let published;
    try {
      published = await ctx.publishArtifact(name, content);
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
