/**
 * `openai`: an agent backed by any OpenAI-compatible Chat Completions endpoint with tool calling and
 * streaming — Ollama's `/v1`, LM Studio, vLLM, OpenAI itself.
 *
 * Configuration (read from the Core's `env`; `--base-url` and `--model` set the same variables):
 * - `PEDELEC_DEV_BASE_URL` — the API base, e.g. `http://127.0.0.1:11434/v1`; requests go to
 *   `POST {base}/chat/completions`.
 * - `PEDELEC_DEV_MODEL` — the model to ask for.
 * - `PEDELEC_DEV_API_KEY` — optional; sent only as `Authorization: Bearer …` to that endpoint. It is
 *   never put in an event, an error, a log line or `list_providers` (error texts that come back from
 *   the endpoint are scrubbed of it, including masked forms such as `sk-ab…wxyz`), and there is
 *   deliberately no flag for it, so it never shows in `ps`.
 * - `PEDELEC_DEV_TIMEOUT_MS` — optional, default 60 000: how long the endpoint may stay silent (before
 *   its response starts, or between two pieces of the stream) before the turn fails `PROVIDER_UNAVAILABLE`.
 *
 * Availability: the agent is available when both a base URL and a model are configured. The model is
 * required because pages written for production name no model of this endpoint (or one of another
 * provider), and an OpenAI-compatible server has no "default model" to fall back on; failing at start
 * (`--agent openai`) or in `list_providers` with a clear reason beats a 404 on the first message.
 * The configured model serves every session, except that a page asking for provider `openai` with a
 * model of its own gets that model.
 *
 * The agent's parts: the turn loop and its history (openai-session.ts), one model request
 * (openai-request.ts), reading its answer (openai-reply.ts), and what its failures become with the key
 * scrubbed from them (openai-errors.ts).
 */
import { MAX_TIMER_MS } from 'pedelec-elements/protocol';
import { OpenAISession } from './openai-session.js';
import type { DevAgent } from './types.js';

export const DEFAULT_TIMEOUT_MS = 60_000;

export type OpenAIConfig = {
  /** `{base}/chat/completions`. */
  endpoint: URL;
  apiKey: string | undefined;
  model: string;
  timeoutMs: number;
};

type Env = Readonly<Record<string, string | undefined>>;

/** Reads the configuration, or says what is missing (without echoing any value: a URL may hold secrets). */
export function readOpenAIConfig(env: Env): OpenAIConfig | { unavailable: string } {
  const rawBase = env.PEDELEC_DEV_BASE_URL?.trim();
  const model = env.PEDELEC_DEV_MODEL?.trim();
  if (!rawBase) {
    // Name only what is missing: a model given with --model needs no second mention.
    const alsoModel = model ? '' : ', and PEDELEC_DEV_MODEL (or --model)';
    return {
      unavailable: `no endpoint configured: set PEDELEC_DEV_BASE_URL (or --base-url), e.g. http://127.0.0.1:11434/v1 for Ollama${alsoModel}`,
    };
  }
  let base: URL;
  try {
    base = new URL(rawBase);
  } catch {
    return { unavailable: 'PEDELEC_DEV_BASE_URL is not a valid URL (expected e.g. http://127.0.0.1:11434/v1)' };
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:')
    return { unavailable: 'PEDELEC_DEV_BASE_URL must be an http:// or https:// URL' };
  if (base.username !== '' || base.password !== '') {
    return {
      unavailable: 'PEDELEC_DEV_BASE_URL must not contain a user name or password; put the key in PEDELEC_DEV_API_KEY',
    };
  }
  if (!model) return { unavailable: 'no model configured: set PEDELEC_DEV_MODEL (or --model), e.g. llama3.1' };
  const apiKey = env.PEDELEC_DEV_API_KEY?.trim() || undefined;
  if (apiKey !== undefined && !/^[\x20-\x7e]+$/.test(apiKey)) {
    return { unavailable: 'PEDELEC_DEV_API_KEY contains characters that cannot be sent in an HTTP header' };
  }
  let timeoutMs = DEFAULT_TIMEOUT_MS;
  const rawTimeout = env.PEDELEC_DEV_TIMEOUT_MS?.trim();
  if (rawTimeout) {
    if (!/^\d{1,10}$/.test(rawTimeout) || Number(rawTimeout) < 1 || Number(rawTimeout) > MAX_TIMER_MS) {
      return { unavailable: 'PEDELEC_DEV_TIMEOUT_MS must be a positive number of milliseconds' };
    }
    timeoutMs = Number(rawTimeout);
  }
  const endpoint = new URL(base.href);
  endpoint.hash = '';
  endpoint.pathname = `${endpoint.pathname.replace(/\/+$/, '')}/chat/completions`;
  return { endpoint, apiKey, model, timeoutMs };
}

/** The agent, or why it cannot run (see the module comment for what is required). */
export function openaiAgent(env: Env): DevAgent | { unavailable: string } {
  const config = readOpenAIConfig(env);
  if ('unavailable' in config) return config;
  return {
    code: 'openai',
    name: 'OpenAI-compatible endpoint',
    defaultModel: config.model,
    openSession: (info) => new OpenAISession(config, info),
  };
}
