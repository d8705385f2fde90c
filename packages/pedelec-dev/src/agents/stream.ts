/**
 * Streaming helpers shared by the local agents: a reply goes out as several `chat_delta` pieces, the
 * way a real model streams, so pages are exercised on text that arrives in fragments.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { TurnContext } from './types.js';

/** Words (with their trailing space) per piece: small enough that a short sentence still streams. */
const WORDS_PER_PIECE = 3;

/** Splits `text` into pieces of a few words; joining them gives `text` back exactly. */
export function pieces(text: string): string[] {
  const words = text.match(/\s*\S+\s*/g) ?? (text ? [text] : []);
  const out: string[] = [];
  for (let i = 0; i < words.length; i += WORDS_PER_PIECE) out.push(words.slice(i, i + WORDS_PER_PIECE).join(''));
  return out;
}

/** Says `text` piece by piece, yielding to the event loop between pieces; stops if the session ends. */
export async function streamText(ctx: TurnContext, text: string): Promise<void> {
  for (const piece of pieces(text)) {
    if (ctx.signal.aborted) return;
    ctx.say(piece);
    await nextTurn();
  }
}
