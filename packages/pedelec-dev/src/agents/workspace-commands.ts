/**
 * The scripted agent's workspace commands: `/files`, `/read PATH`, `/write PATH TEXT` and `/run SCRIPT`
 * act on the session's workspace (TurnContext.workspace) and say what happened; a refusal is said, with
 * its code, never thrown.
 */
import { streamText } from './stream.js';
import type { AgentWorkspace, TurnContext } from './types.js';

const FILES = /^\/files\s*$/;
const READ = /^\/read(?:\s+(\S+))?\s*$/;
const WRITE = /^\/write(?:\s+(\S+)(?:\s([\s\S]*))?)?$/;
const RUN = /^\/run(?:\s+([\s\S]*))?$/;

/** The first 2 000 characters of an output, and a note when there was more. */
const shown = (text: string, cut: boolean) =>
  (text.length > 2000 ? `${text.slice(0, 2000)}…` : text) + (cut ? '\n(cut at 1 MiB)' : '');

type Command = { what: string; act(workspace: AgentWorkspace): Promise<string> };

function commandOf(message: string): Command | string | null {
  if (FILES.test(message))
    return {
      what: 'list the workspace',
      act: async (w) => {
        const files = await w.files();
        return files.length
          ? `Files in the workspace:\n${files.map((f) => `- ${f}`).join('\n')}`
          : 'The workspace is empty.';
      },
    };
  const read = READ.exec(message);
  if (read) {
    const path = read[1];
    if (!path) return 'Name the file: /read notes/today.md';
    return { what: `read ${path}`, act: async (w) => `${path}:\n${await w.read(path)}` };
  }
  const write = WRITE.exec(message);
  if (write) {
    const [, path, text = ''] = write;
    if (!path) return 'Name the file and its text: /write notes/today.md Hello from the agent';
    return { what: `write ${path}`, act: async (w) => `Wrote ${await w.write(path, text)} bytes to ${path}.` };
  }
  const run = RUN.exec(message);
  if (run) {
    const script = run[1]?.trim();
    if (!script) return 'Give the script to run: /run console.log(Deno.version.deno)';
    return {
      what: 'run the script',
      act: async (w) => {
        const result = await w.run(script);
        const parts = [`Exit code ${result.exitCode}.`];
        if (result.stdout) parts.push(`stdout:\n${shown(result.stdout, result.stdoutTruncated)}`);
        if (result.stderr) parts.push(`stderr:\n${shown(result.stderr, result.stderrTruncated)}`);
        return parts.join('\n');
      },
    };
  }
  return null;
}

/** Runs `message` if it is a workspace command, and says so; false when it is not one. */
export async function workspaceCommand(ctx: TurnContext, message: string): Promise<boolean> {
  const command = commandOf(message);
  if (command === null) return false;
  if (typeof command === 'string') {
    await streamText(ctx, command);
    return true;
  }
  if (!ctx.workspace) {
    await streamText(ctx, 'This session has no workspace (the 0.1 protocol has none).');
    return true;
  }
  let answer: string;
  try {
    answer = await command.act(ctx.workspace);
  } catch (error) {
    if (ctx.signal.aborted) return true;
    const { code, message: said } = error as { code?: string; message?: string };
    answer = `I could not ${command.what}: ${code ?? 'ERROR'} — ${said ?? String(error)}`;
  }
  await streamText(ctx, answer);
  return true;
}
