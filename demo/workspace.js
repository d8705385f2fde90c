// The workspace demo: the page uploads a file into the session's workspace, the agent reads it and
// writes its answer, the page reads that answer; and the page runs a Deno script there itself, with a
// Deno module whose compiled sources it attaches (a page with no build step has no build plugin).
import { attachDenoModuleSources, defineDenoModule } from '/_pedelec/cdn/pedelec-elements.js';

const session = document.querySelector('pedelec-session');
const $ = (id) => document.getElementById(id);

const wanted = new URLSearchParams(location.search).get('bridge');
if (wanted !== 'extension') session.bridge = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/bridge`;

session.addEventListener('pedelec-status', (event) => ($('status').value = event.detail.status));

/** The session's workspace, once the session exists. */
function workspace() {
  if (!session.session) throw new Error('The session has not started yet.');
  return session.session.workspace;
}

/** Shows a failure where the result would have gone. */
const failed = (where) => (error) => ($(where).textContent = `${error.code ?? 'ERROR'}: ${error.message}`);

// 1. The page puts a file in the agent's workspace.
$('upload-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const file = new File([$('notes').value], 'notes.txt', { type: 'text/plain' });
  Promise.resolve()
    .then(() => workspace().uploadFile(file))
    .then((path) => ($('uploaded').value = `Uploaded: ${path}`), failed('uploaded'));
});

// 2. The agent reads it and writes its answer; the page reads the answer once the turn is over.
const SCRIPT = [
  '/run const notes = (await Deno.readTextFile("notes.txt")).split("\\n").filter(Boolean);',
  'await Deno.writeTextFile("answer.txt", notes.map((line, i) => `${i + 1}. ${line}`).join("\\n"));',
  'console.log(`answered ${notes.length} lines`);',
].join(' ');
$('ask').addEventListener('click', () => {
  $('answer').textContent = 'The agent is working…';
  session
    .sendText(SCRIPT)
    .then(() => workspace().readFile('answer.txt', 'text'))
    .then((answer) => ($('answer').textContent = answer), failed('answer'));
});

// 3. The page runs a script itself, with a module of its own.
const wordCount = attachDenoModuleSources(defineDenoModule({ name: 'word-count', entry: './word-count.ts' }), {
  runtimeSource: 'export const countWords = (text) => text.split(/\\s+/).filter(Boolean).length;',
  typesSource: 'export declare const countWords: (text: string) => number;',
});
$('count').addEventListener('click', () => {
  const script = [
    'import { countWords } from "word-count";',
    'const text = await Deno.readTextFile("notes.txt");',
    'console.log(`${countWords(text)} words in notes.txt (Deno ${Deno.version.deno})`);',
  ].join('\n');
  $('run-output').textContent = 'Running…';
  Promise.resolve()
    .then(() => workspace().run(script, { timeoutMs: 10_000, denoModules: [wordCount] }))
    .then(
      ({ exitCode, stdout, stderr }) => ($('run-output').textContent = exitCode === 0 ? stdout : `exit ${exitCode}\n${stderr}`),
      failed('run-output'),
    );
});
