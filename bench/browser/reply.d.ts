// Types of reply.js, for the perf test that streams the same reply (test/perf/stream-real-path.test.ts).

/** A Markdown reply of exactly `bytes` characters. */
export function markdownReply(bytes: number): string;
/** `text` in pieces of `size` characters, as a stream delivers it. */
export function deltas(text: string, size: number): string[];
