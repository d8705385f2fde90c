/**
 * The session's workspace as function tools for a model (the `openai` agent): list, read, write and
 * run Deno there, as a coding agent works in its folder. Offered only when the session has a
 * workspace; a page tool of the same name wins (its tool is the page's to define).
 */
import type { JsonValue } from 'pedelec-elements/core';
import { DevCoreError } from '../errors.js';
import type { AgentWorkspace } from './types.js';

type FunctionTool = { name: string; description: string; parameters: object };

const PATH = { type: 'string', description: 'A path from the workspace root, such as notes/today.md' };

export const WORKSPACE_TOOLS: readonly FunctionTool[] = [
  {
    name: 'workspace_list_files',
    description: 'List every file in your workspace (the folder you work in), as paths from its root.',
    parameters: { type: 'object', properties: {} },
  },
  {
    name: 'workspace_read_file',
    description: 'Read a text file of your workspace.',
    parameters: { type: 'object', properties: { path: PATH }, required: ['path'] },
  },
  {
    name: 'workspace_write_file',
    description: 'Write a text file in your workspace (its folders are made; an existing file is replaced).',
    parameters: {
      type: 'object',
      properties: { path: PATH, text: { type: 'string', description: 'The whole content of the file' } },
      required: ['path', 'text'],
    },
  },
  {
    name: 'workspace_run_deno',
    description:
      'Run a Deno (TypeScript) script in your workspace folder. It may read and write files there, and ' +
      'import the Deno modules the page gave you by name; it has no network. Returns its exit code and output.',
    parameters: {
      type: 'object',
      properties: { script: { type: 'string', description: 'The script, as the content of a .ts file' } },
      required: ['script'],
    },
  },
];

const text = (args: Record<string, unknown>, key: string): string => {
  const value = args[key];
  if (typeof value !== 'string') throw new DevCoreError('TOOL_ARGS_INVALID', `${key} must be a string`);
  return value;
};

/** Runs workspace tool `name` with the model's `args`; a failure is an error result the model can read. */
export async function runWorkspaceTool(workspace: AgentWorkspace, name: string, args: unknown): Promise<JsonValue> {
  const given = typeof args === 'object' && args !== null ? (args as Record<string, unknown>) : {};
  try {
    switch (name) {
      case 'workspace_list_files':
        return { files: await workspace.files() };
      case 'workspace_read_file':
        return { text: await workspace.read(text(given, 'path')) };
      case 'workspace_write_file':
        return { bytes: await workspace.write(text(given, 'path'), text(given, 'text')) };
      default:
        return { ...(await workspace.run(text(given, 'script'))) };
    }
  } catch (error) {
    const { code, message } = error as { code?: string; message?: string };
    return { error: { code: code ?? 'INTERNAL_ERROR', message: message ?? String(error) } };
  }
}
