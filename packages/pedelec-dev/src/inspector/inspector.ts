/**
 * The inspector's server side: a WebSocket at `/_pedelec/inspector/socket` that streams sessions, the bridge
 * message log, operator turns, approval prompts and folder picks to the inspector page, and takes the operator's
 * actions back. It sees everything, so it is locked twice: the upgrade must come from this server's
 * own origin (not merely an allowed one — a page on another local port must not read other pages'
 * traffic) and carry the random token printed at start. Anything else is closed with 1008.
 */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { WebSocket, type RawData } from 'ws';
import type { PedelecError } from 'pedelec-elements/core';
import type { OperatorDesk } from '../agents/operator.js';
import type { Approvals } from './approval.js';
import type { FolderPicks } from './folder-picks.js';
import { DevCoreError, frameText, toWireError } from '../errors.js';
import type { MessageLog } from './message-log.js';
import type { SessionRegistry } from '../bridge/registry.js';

export type InspectorDeps = {
  token: string;
  /** Exact origins the inspector page can be loaded from (this server's). */
  ownOrigins: ReadonlySet<string>;
  registry: SessionRegistry;
  approvals: Approvals;
  picks: FolderPicks;
  desk: OperatorDesk;
  log: MessageLog;
  info: Record<string, unknown>;
};

/** Past this much unsent data an inspector is too slow for the live log; it skips entries meanwhile. */
const SLOW_CONSUMER_BYTES = 4 * 1024 * 1024;

function sameToken(given: string | null, expected: string): boolean {
  if (given === null) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** What the inspector gets instead of a message that cannot be serialized (see frameText). */
const unsendable = (error: PedelecError) => ({ type: 'error', error });

export class InspectorHub {
  private readonly clients = new Set<WebSocket>();
  private readonly unsubscribe: Array<() => void> = [];

  constructor(private readonly deps: InspectorDeps) {
    this.unsubscribe.push(
      deps.registry.subscribe((event) => this.broadcast(event)),
      deps.approvals.subscribe((event) => this.broadcast(event)),
      deps.picks.subscribe((event) => this.broadcast(event)),
      deps.desk.subscribe((event) => this.broadcast(event)),
      deps.log.subscribe((entry) => this.broadcast({ type: 'log', entry }, true)),
    );
  }

  /** Takes an upgraded socket; keeps it only with the right origin and token. */
  accept(socket: WebSocket, req: IncomingMessage): void {
    const origin = req.headers.origin;
    const token = new URL(req.url ?? '/', 'http://inspector.invalid').searchParams.get('token');
    if (origin === undefined || !this.deps.ownOrigins.has(origin)) {
      socket.close(1008, 'inspector: wrong origin');
      return;
    }
    if (!sameToken(token, this.deps.token)) {
      socket.close(1008, 'inspector: missing or wrong token');
      return;
    }
    this.clients.add(socket);
    socket.on('close', () => this.clients.delete(socket));
    socket.on('error', () => {});
    socket.on('message', (data, isBinary) => this.onMessage(socket, data, isBinary));
    this.send(socket, {
      type: 'hello',
      server: this.deps.info,
      sessions: this.deps.registry.list(),
      turns: this.deps.desk.list(),
      approvals: this.deps.approvals.pending(),
      picks: this.deps.picks.pending(),
      log: this.deps.log.recent(),
    });
  }

  closeAll(code: number, reason: string): void {
    for (const socket of this.clients) socket.close(code, reason);
    this.clients.clear();
    for (const off of this.unsubscribe.splice(0)) off();
  }

  private send(socket: WebSocket, message: Record<string, unknown>): void {
    if (socket.readyState === WebSocket.OPEN) socket.send(frameText(message, unsendable));
  }

  private broadcast(message: Record<string, unknown>, droppable = false): void {
    if (this.clients.size === 0) return;
    const text = frameText(message, unsendable);
    for (const socket of this.clients) {
      if (socket.readyState !== WebSocket.OPEN) continue;
      if (droppable && socket.bufferedAmount > SLOW_CONSUMER_BYTES) continue;
      socket.send(text);
    }
  }

  private onMessage(socket: WebSocket, data: RawData, isBinary: boolean): void {
    let message: Record<string, unknown>;
    try {
      if (isBinary) throw new Error('binary');
      // With ws's default binaryType ('nodebuffer'), a message arrives as one Buffer.
      const parsed: unknown = JSON.parse((data as Buffer).toString());
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not an object');
      message = parsed as Record<string, unknown>;
    } catch {
      return this.send(socket, {
        type: 'error',
        error: { code: 'INVALID_MESSAGE', message: 'Inspector messages are JSON objects' },
      });
    }
    try {
      this.act(socket, message);
    } catch (error) {
      this.send(socket, { type: 'error', error: toWireError(error), for: message.type ?? null });
    }
  }

  private act(socket: WebSocket, message: Record<string, unknown>): void {
    const text = (key: string): string => {
      const value = message[key];
      if (typeof value !== 'string') throw new DevCoreError('INVALID_INPUT', `${key} must be a string`);
      return value;
    };
    switch (message.type) {
      case 'approve':
        if (!this.deps.approvals.answer(text('id'), message.approved === true)) {
          throw new DevCoreError('APPROVAL_NOT_FOUND', 'That approval prompt is no longer open');
        }
        return;
      case 'pick_folder':
        if (!this.deps.picks.answer(text('id'), message.path === null ? null : text('path'))) {
          throw new DevCoreError('DIRECTORY_PICKER_FAILED', 'That folder pick is no longer open');
        }
        return;
      case 'operator_say':
        return this.deps.desk.say(text('sessionId'), text('text'));
      case 'operator_end_turn':
        return this.deps.desk.endTurn(text('sessionId'));
      case 'operator_call': {
        const callId = message.callId ?? null;
        this.deps.desk.callTool(text('sessionId'), text('tool'), message.args).then(
          ({ result, durationMs }) =>
            this.send(socket, { type: 'operator_result', callId, ok: true, result, durationMs }),
          (error) => this.send(socket, { type: 'operator_result', callId, ok: false, error: toWireError(error) }),
        );
        return;
      }
      default:
        throw new DevCoreError('UNKNOWN_REQUEST_TYPE', `Unknown inspector message ${JSON.stringify(message.type)}`);
    }
  }
}
