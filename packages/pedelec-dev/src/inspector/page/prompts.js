// @ts-check
// What waits for the operator's answer: approval requests (an origin, or an MCP client's call), and folder
// picks — a page called `openWorkspace()` without a path, which Desktop answers with a folder dialog;
// the operator types the folder (an absolute path) or cancels.

/** @import { ApprovalPrompt, FolderPick, OperatorMessage } from './types.js' */
import { $, el } from './dom.js';

/**
 * Shows the open approval requests, each with its Approve and Reject buttons.
 * @param {Map<string, ApprovalPrompt>} approvals
 * @param {(message: OperatorMessage) => void} send
 */
export function renderApprovals(approvals, send) {
  $('approval-list').replaceChildren(
    ...[...approvals.values()].map((p) =>
      el(
        'li',
        {},
        p.call
          ? el(
              'span',
              {},
              `${p.call.client} (MCP) calls ${p.call.tool} in ${p.call.page} — origin ${p.origin ?? '(none)'}, page `,
              el('small', {}, p.call.url),
              ' — with ',
              el('code', {}, p.call.args),
              ' ',
            )
          : el('span', {}, `${p.origin ?? '(no origin)'} asks to use Pedelec `),
        el('button', { type: 'button', onclick: () => send({ type: 'approve', id: p.id, approved: true }) }, 'Approve'),
        ' ',
        el('button', { type: 'button', onclick: () => send({ type: 'approve', id: p.id, approved: false }) }, 'Reject'),
      ),
    ),
  );
  $('approvals').hidden = approvals.size === 0;
}

/**
 * Shows the waiting picks, each with its folder field and its Open and Cancel buttons.
 * @param {Map<string, FolderPick>} picks
 * @param {(message: OperatorMessage) => void} send
 */
export function renderFolderPicks(picks, send) {
  $('pick-list').replaceChildren(
    ...[...picks.values()].map((pick) => {
      const field = el('input', { type: 'text', placeholder: '/absolute/path/of/a/folder', 'aria-label': 'Folder' });
      const form = el(
        'form',
        {
          onsubmit: (/** @type {SubmitEvent} */ e) => (
            e.preventDefault(),
            send({ type: 'pick_folder', id: pick.id, path: field.value })
          ),
        },
        el('span', {}, `${pick.origin ?? '(no origin)'} asks for a folder `),
        field,
        ' ',
        el('button', {}, 'Open'),
        ' ',
        el(
          'button',
          { type: 'button', onclick: () => send({ type: 'pick_folder', id: pick.id, path: null }) },
          'Cancel',
        ),
      );
      return el('li', {}, form);
    }),
  );
  $('pick-error').textContent = '';
  $('picks').hidden = picks.size === 0;
}

/**
 * Shows why the Core refused a folder (not an absolute path of a folder); the pick stays open.
 * @param {string} message
 */
export function showPickError(message) {
  $('pick-error').textContent = message;
}
