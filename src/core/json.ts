/** The values a Chrome port (and so the bridge) carries intact. */
export type JsonPrimitive = string | number | boolean | null;
export type JsonValue = JsonPrimitive | JsonValue[] | { [key: string]: JsonValue };

/** Why a value is not bridge JSON: where (`result.items[2]`) and what. */
export type JsonProblem = { path: string; message: string };

const MAX_DEPTH = 256;

/** `a.b`, `a["odd key"]`, `a[2]`: JS notation, readable by the agent and the developer. */
export function appendKey(path: string, key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? (path ? `${path}.${key}` : key) : `${path}[${JSON.stringify(key)}]`;
}

function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function describe(value: unknown): string {
  switch (typeof value) {
    case 'bigint':
      return 'BigInt';
    case 'function':
      return 'a function';
    case 'symbol':
      return 'a symbol';
    case 'number':
      return String(value);
    default: {
      const name = (value as object)?.constructor?.name;
      return name ? `a ${name}` : 'a non-plain object';
    }
  }
}

/**
 * Converts a handler's result to bridge JSON the way `JSON.stringify` would (`toJSON` honoured,
 * `undefined` object properties dropped, `undefined` at the top → `null`), or reports the first
 * value that is not JSON with its path. Plain JSON input is returned as is, without copying.
 */
export function toBridgeJson(value: unknown, path = 'result'): { ok: true; value: JsonValue } | { ok: false; problem: JsonProblem } {
  if (value === undefined) return { ok: true, value: null };
  const seen: object[] = [];
  let problem: JsonProblem | null = null;

  const visit = (v: unknown, p: string, depth: number): unknown => {
    if (v === null || typeof v === 'string' || typeof v === 'boolean') return v;
    if (typeof v === 'number') {
      if (Number.isFinite(v)) return v;
      problem = { path: p, message: `${p}: ${describe(v)} is not JSON` };
      return undefined;
    }
    if (typeof v !== 'object') {
      problem = { path: p, message: `${p}: ${describe(v)} is not JSON` };
      return undefined;
    }
    if (typeof (v as { toJSON?: unknown }).toJSON === 'function') {
      return visit((v as { toJSON: () => unknown }).toJSON(), p, depth);
    }
    if (depth > MAX_DEPTH) {
      problem = { path: p, message: `${p}: nested deeper than ${MAX_DEPTH} levels` };
      return undefined;
    }
    if (seen.includes(v)) {
      problem = { path: p, message: `${p}: cycle is not JSON` };
      return undefined;
    }
    seen.push(v);
    let out: unknown = v;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const item = v[i];
        const converted = visit(item === undefined ? null : item, `${p}[${i}]`, depth + 1);
        if (problem) break;
        if (converted !== item) {
          if (out === v) out = v.slice();
          (out as unknown[])[i] = converted;
        }
      }
    } else if (isPlainObject(v)) {
      for (const key of Object.keys(v)) {
        const item = (v as Record<string, unknown>)[key];
        if (item === undefined) {
          if (out === v) out = { ...v };
          delete (out as Record<string, unknown>)[key];
          continue;
        }
        const converted = visit(item, appendKey(p, key), depth + 1);
        if (problem) break;
        if (converted !== item) {
          if (out === v) out = { ...v };
          // defineProperty: a key named "__proto__" stays an own data property.
          Object.defineProperty(out, key, { value: converted, enumerable: true, writable: true, configurable: true });
        }
      }
    } else {
      problem = { path: p, message: `${p}: ${describe(v)} is not JSON` };
    }
    seen.pop();
    return out;
  };

  const converted = visit(value, path, 0);
  return problem ? { ok: false, problem } : { ok: true, value: converted as JsonValue };
}

/**
 * Canonical JSON text: object keys sorted, so two equal definitions give one string whatever
 * their key order. Used as a cache key and for manifest hashes; input must already be JSON.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const keys = Object.keys(value).filter((k) => (value as Record<string, unknown>)[k] !== undefined).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`).join(',')}}`;
}
