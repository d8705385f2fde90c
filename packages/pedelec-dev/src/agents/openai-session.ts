/**
 * The `openai` agent's conversation: the history kept per session and the loop of one turn. The
 * page's tools are function tools (names mapped by {@link ToolNameMap}); the loop runs model → tool
 * calls → page (one at a time, in order, through `ctx.callTool`) → `role: "tool"` results → model,
 * until the model answers without tool calls, at most {@link MAX_ROUNDS} model requests (then
 * `AGENT_LOOP_LIMIT`). Each request's text starts a new paragraph of the reply. A call that never
 * reaches the page (arguments that are not JSON, or refused by the Core: unknown tool, arguments not
 * matching) is told as a line of the reply of its own — the page shows nothing else of it, and the
 * protocol has no event for it. A session with a workspace also gives the model the workspace's tools
 * (workspace-tools.ts), run here rather than on the page. Each model request itself is openai-request.ts's.
 */
import type { JsonValue } from 'pedelec-elements/core';
import type { OpenAIConfig } from './openai.js';
import { MAX_DETAIL } from './openai-errors.js';
import type { AssembledCall, Reply } from './openai-reply.js';
import { ChatCompletions, type ChatMessage } from './openai-request.js';
import { ToolNameMap } from './tool-names.js';
import { runWorkspaceTool, WORKSPACE_TOOLS } from './workspace-tools.js';
import { AgentError, type AgentSession, type AgentSessionInfo, type TurnContext } from './types.js';

/** Model requests per user turn. */
export const MAX_ROUNDS = 16;

function parseArguments(text: string): { ok: true; value: unknown } | { ok: false; reason: string } {
  // Some models send nothing at all for a tool without arguments.
  if (text.trim() === '') return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, reason: (error as Error).message };
  }
}

/**
 * What the page is told in one turn. Each model request's text starts a paragraph of its own (one
 * reply of the model does not run into the next: "Sure, let me do that." then "Done."), and so does
 * each note of the agent's own (a call that was not run).
 */
class TurnText {
  private said = false;
  private breakDue = false;

  constructor(private readonly ctx: TurnContext) {}

  say = (text: string): void => {
    if (text === '') return;
    this.ctx.say(this.said && this.breakDue ? `\n\n${text}` : text);
    this.said = true;
    this.breakDue = false;
  };

  /** What is said next starts a new paragraph (if anything was said before it). */
  paragraph(): void {
    this.breakDue = true;
  }

  /** A line of the agent's own, as a paragraph of its own. */
  note(text: string): void {
    this.paragraph();
    this.say(text);
    this.paragraph();
  }
}

/** The line that tells the person a call was not run: what the page would otherwise never show. */
function refusalLine(tool: string, code: string, message: string): string {
  const shorten = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}…` : text);
  return `Tool call refused — ${shorten(tool, 64)}: ${shorten(message, MAX_DETAIL)} (${code})`;
}

export class OpenAISession implements AgentSession {
  private readonly history: ChatMessage[] = [];
  private readonly names: ToolNameMap;
  private readonly endpoint: ChatCompletions;

  /** The workspace tools offered to the model (none without a workspace). */
  private readonly workspaceTools: ReadonlySet<string>;

  constructor(config: OpenAIConfig, info: AgentSessionInfo) {
    const pageTools = (info.skills?.tools ?? []).map((t) => t.name);
    const offered = info.hasWorkspace ? WORKSPACE_TOOLS.filter((t) => !pageTools.includes(t.name)) : [];
    this.workspaceTools = new Set(offered.map((t) => t.name));
    this.names = new ToolNameMap([...pageTools, ...this.workspaceTools]);
    this.endpoint = new ChatCompletions(config, info, this.names, offered);
  }

  async turn(text: string, ctx: TurnContext): Promise<void> {
    this.history.push({ role: 'user', content: text });
    const asked = this.history.length;
    const out = new TurnText(ctx);
    for (let round = 1; round <= MAX_ROUNDS; round++) {
      let reply: Reply;
      out.paragraph();
      try {
        reply = await this.endpoint.complete(this.history, ctx, round, out.say);
      } catch (error) {
        // A turn that failed before any round completed leaves no trace: the user sends it again,
        // and failed messages do not pile up in every later request.
        if (this.history.length === asked) this.history.pop();
        throw error;
      }
      if (reply.calls.length === 0) {
        this.history.push({ role: 'assistant', content: reply.text });
        return;
      }
      // Arguments go back as JSON whatever the model sent: endpoints such as Ollama's and vLLM's parse
      // every call in the history and refuse the whole request (and every later turn) otherwise. A
      // call whose arguments were not JSON is answered with a tool error below.
      const parsed = reply.calls.map((c) => parseArguments(c.arguments));
      const assistant: ChatMessage = {
        role: 'assistant',
        content: reply.text === '' ? null : reply.text,
        tool_calls: reply.calls.map((c, i) => {
          const args = parsed[i];
          return {
            id: c.id,
            type: 'function',
            function: { name: c.name, arguments: args.ok ? JSON.stringify(args.value) : '{}' },
          };
        }),
      };
      if (round === MAX_ROUNDS) {
        // Keep the history valid (every call answered) for the next turn, without running more calls.
        const notRun = JSON.stringify({
          error: {
            code: 'AGENT_LOOP_LIMIT',
            message: `Not run: the turn reached its limit of ${MAX_ROUNDS} model requests.`,
          },
        });
        this.history.push(
          assistant,
          ...reply.calls.map((c): ChatMessage => ({ role: 'tool', tool_call_id: c.id, content: notRun })),
        );
        throw new AgentError(
          'AGENT_LOOP_LIMIT',
          `The model kept calling tools: the turn stopped after ${MAX_ROUNDS} model requests without a final answer.`,
          { source: 'core', details: { rounds: MAX_ROUNDS } },
        );
      }
      // The round goes into the history only once every call has its result, so a turn that fails
      // half-way leaves a history the endpoint still accepts.
      const results: ChatMessage[] = [];
      for (const [i, call] of reply.calls.entries())
        results.push({ role: 'tool', tool_call_id: call.id, content: await this.runCall(call, parsed[i], ctx, out) });
      this.history.push(assistant, ...results);
    }
  }

  /**
   * Runs one call on the page (or answers it here when its arguments are not JSON); the tool message
   * content. A call that never reaches the page — refused here or by the Core — is told to the person
   * as a line of the reply, since the page shows nothing of it.
   */
  private async runCall(
    call: AssembledCall,
    args: ReturnType<typeof parseArguments>,
    ctx: TurnContext,
    out: TurnText,
  ): Promise<string> {
    const tool = this.names.toOriginal(call.name);
    if (!args.ok) {
      out.note(refusalLine(tool, 'TOOL_ARGS_INVALID', `the model's arguments are not valid JSON: ${args.reason}`));
      return JSON.stringify({
        error: {
          code: 'TOOL_ARGS_INVALID',
          message: `The arguments of ${call.name} are not valid JSON (${args.reason}). Call the tool again with a JSON object that matches its parameters.`,
        },
      });
    }
    if (this.workspaceTools.has(tool) && ctx.workspace)
      return JSON.stringify(await runWorkspaceTool(ctx.workspace, tool, args.value));
    const result: JsonValue = await ctx.callTool(tool, args.value);
    if (ctx.refused(result)) {
      const { code, message } = (result as { error: { code: string; message: string } }).error;
      out.note(refusalLine(tool, code, message));
    }
    return JSON.stringify(result);
  }
}
