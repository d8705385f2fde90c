/**
 * `operator`: a person plays the agent from the inspector. A user turn stays open until the operator
 * ends it; meanwhile the operator can chat and call the page's tools. The {@link OperatorDesk} is the
 * meeting point: the agent opens turns on it, the inspector acts on them.
 */
import { performance } from 'node:perf_hooks';
import type { JsonValue } from 'pedelec-elements/core';
import { DevCoreError } from '../errors.js';
import type { AgentSession, DevAgent, TurnContext } from './types.js';

export type OpenTurnInfo = { sessionId: string; text: string; openedAt: number };
export type DeskEvent = { type: 'turn_opened'; turn: OpenTurnInfo } | { type: 'turn_closed'; sessionId: string };

type OpenTurn = { info: OpenTurnInfo; ctx: TurnContext; finish(): void };

export class OperatorDesk {
  private readonly turns = new Map<string, OpenTurn>();
  private readonly listeners = new Set<(event: DeskEvent) => void>();

  subscribe(listener: (event: DeskEvent) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /** Turns waiting for the operator. */
  list(): OpenTurnInfo[] {
    return [...this.turns.values()].map((t) => t.info);
  }

  /** Called by the agent: resolves when the operator ends the turn or the session ends. */
  open(text: string, ctx: TurnContext): Promise<void> {
    const sessionId = ctx.session.sessionId;
    return new Promise<void>((resolve) => {
      const finish = () => {
        if (this.turns.get(sessionId) !== turn) return;
        this.turns.delete(sessionId);
        ctx.signal.removeEventListener('abort', finish);
        this.notify({ type: 'turn_closed', sessionId });
        resolve();
      };
      const turn: OpenTurn = { info: { sessionId, text, openedAt: Date.now() }, ctx, finish };
      this.turns.set(sessionId, turn);
      ctx.signal.addEventListener('abort', finish, { once: true });
      this.notify({ type: 'turn_opened', turn: turn.info });
    });
  }

  say(sessionId: string, text: string): void {
    this.get(sessionId).ctx.say(text);
  }

  /** Calls a tool as the operator; the result is whatever the agent would get, plus the time it took. */
  async callTool(sessionId: string, tool: string, args: unknown): Promise<{ result: JsonValue; durationMs: number }> {
    const { ctx } = this.get(sessionId);
    const started = performance.now();
    const result = await ctx.callTool(tool, args);
    return { result, durationMs: performance.now() - started };
  }

  endTurn(sessionId: string): void {
    this.get(sessionId).finish();
  }

  private get(sessionId: string): OpenTurn {
    const turn = this.turns.get(sessionId);
    if (!turn) {
      throw new DevCoreError('NO_OPERATOR_TURN', 'That session has no open turn: the page must send a message first', {
        sessionId,
      });
    }
    return turn;
  }

  private notify(event: DeskEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // Observers never break a turn.
      }
    }
  }
}

export function operatorAgent(desk: OperatorDesk): DevAgent {
  const session: AgentSession = {
    turn: (text, ctx) => desk.open(text, ctx),
    // Warming up needs no person: the prepare turn ends at once.
    prepare: async () => {},
  };
  return {
    code: 'operator',
    name: 'Operator (a person, from the inspector)',
    defaultModel: 'operator',
    openSession: () => session,
  };
}
