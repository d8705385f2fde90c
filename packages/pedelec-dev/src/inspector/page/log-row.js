// @ts-check
// A row of the inspector's message log. Frames come from pages and agents: shown as text only.
/** @import { LogEntry } from './types.js' */
import { el, short, time } from './dom.js';

/**
 * The frame without the fields that have their own column, shortened.
 * @param {LogEntry} entry
 */
function previewOf(entry) {
  let text = entry.text;
  try {
    // Left out of the preview: they have their own columns.
    const { channelId, type, sessionId, ...rest } = JSON.parse(entry.text);
    text = JSON.stringify(rest);
  } catch {
    // not JSON (or cut): show as received
  }
  return text.length > 160 ? `${text.slice(0, 160)}…` : text;
}

/**
 * A row of the message log: the frame's preview, which a click opens to the whole frame and closes again.
 * @param {LogEntry} entry
 */
export function logRow(entry) {
  const arrow = entry.dir === 'in' ? '→ Core' : entry.dir === 'out' ? '← Core' : '•';
  const preview = previewOf(entry);
  const cell = el('td', { class: 'message' }, preview);
  const row = el(
    'tr',
    { class: `dir-${entry.dir}`, title: entry.origin ?? '' },
    el('td', {}, time(entry.at)),
    el('td', {}, arrow),
    el('td', {}, entry.connectionId),
    el('td', {}, entry.type ?? ''),
    el('td', {}, short(entry.sessionId)),
    cell,
  );
  row.addEventListener('click', () => {
    if (cell.dataset.open) {
      cell.replaceChildren(preview);
      delete cell.dataset.open;
      return;
    }
    let pretty = entry.text;
    try {
      pretty = JSON.stringify(JSON.parse(entry.text), null, 2);
    } catch {
      // not JSON (or cut): show as received
    }
    cell.replaceChildren(el('pre', {}, pretty + (entry.truncated ? '\n… (cut)' : '')));
    cell.dataset.open = '1';
  });
  return row;
}
