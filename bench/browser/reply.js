// The `stream` benchmark's reply: Markdown as an agent writes it — sections with a heading, paragraphs
// with inline code, emphasis and links, a tight list, a numbered list, a quote, a fenced code block and
// a table: every block kind — deterministic, cut at `bytes` characters (the cut may fall inside a
// block, as a stream's end can).

function section(n) {
  const rows = Array.from(
    { length: 4 },
    (_, i) => `| item ${n}.${i} | ${(n * 7 + i * 3) % 100} | ${i % 2 ? 'yes' : 'no'} |`,
  );
  return [
    `## Step ${n + 1}: checking part ${n}`,
    '',
    `The agent read **part ${n}** of the page and compared it with the previous state. It called ` +
      `\`get_counter\` and \`list_todos\`, then checked the [documentation](https://example.com/docs/${n}) ` +
      `for anything that *might* have changed since the last step.`,
    '',
    `- the counter holds ${n * 3}`,
    `- ${n % 4} items are still open`,
    `- nothing else changed on the page`,
    '',
    `> The page said: "part ${n} saved". The agent takes that as **confirmed**, and checks it once more`,
    `> with \`get_counter\` before the next step.`,
    '',
    `1. read part ${n + 1}`,
    `2. compare it with the *previous* state`,
    `3. report what changed`,
    '',
    '```js',
    `const step = ${n};`,
    `const total = items.filter((item) => item.done).length + step;`,
    `console.log(\`step \${step}: \${total} done\`);`,
    '```',
    '',
    '| name | value | done |',
    '| --- | ---: | :-: |',
    ...rows,
    '',
    `In short: part ${n} is consistent, and the next step looks at part ${n + 1}.`,
    '',
    '',
  ].join('\n');
}

/** A Markdown reply of exactly `bytes` characters. */
export function markdownReply(bytes) {
  let text = '';
  for (let n = 0; text.length < bytes; n++) text += section(n);
  return text.slice(0, bytes);
}

/** `text` in pieces of `size` characters, as a stream delivers it. */
export function deltas(text, size) {
  const pieces = [];
  for (let i = 0; i < text.length; i += size) pieces.push(text.slice(i, i + size));
  return pieces;
}
