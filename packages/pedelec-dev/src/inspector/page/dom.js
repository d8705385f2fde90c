// @ts-check
// The inspector's DOM helpers: its elements by id, new elements whose content is only ever set as text,
// and how ids and times are shown.

/**
 * The elements of index.html this script uses, by id.
 * @typedef {{
 *   'server-info': HTMLParagraphElement, 'socket-state': HTMLOutputElement, 'no-token': HTMLParagraphElement,
 *   approvals: HTMLElement, 'approval-list': HTMLUListElement, picks: HTMLElement, 'pick-list': HTMLUListElement,
 *   'pick-error': HTMLParagraphElement, sessions: HTMLUListElement,
 *   'no-sessions': HTMLParagraphElement, 'detail-empty': HTMLParagraphElement, 'detail-body': HTMLDivElement,
 *   'detail-facts': HTMLDListElement, 'detail-guidance': HTMLPreElement, 'detail-tools': HTMLUListElement,
 *   'operator-idle': HTMLParagraphElement, 'operator-turn': HTMLDivElement, 'operator-text': HTMLQuoteElement,
 *   'say-form': HTMLFormElement, 'say-text': HTMLInputElement, 'call-form': HTMLFormElement,
 *   'call-tool': HTMLSelectElement, 'call-fields': HTMLFieldSetElement, 'call-args': HTMLTextAreaElement,
 *   'call-result': HTMLDivElement, 'end-turn': HTMLButtonElement, 'log-filter': HTMLFormElement,
 *   'filter-text': HTMLInputElement, 'filter-dir': HTMLSelectElement, 'filter-session': HTMLInputElement,
 *   'log-pause': HTMLInputElement, 'log-clear': HTMLButtonElement, log: HTMLTableSectionElement
 * }} PageElements
 */

/**
 * The element of index.html with this id (never null: the page has each one).
 * @template {keyof PageElements} K
 * @param {K} id
 * @returns {PageElements[K]}
 */
export const $ = (id) => /** @type {PageElements[K]} */ (document.getElementById(id));

/**
 * A new element with `props` set on it (`class`, `dataset`, `on…` listeners, any other as a property)
 * and `children` appended, null and undefined left out.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, any>} [props]
 * @param {...(Node | string | null | undefined)} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (key === 'class') node.className = value;
    else if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
    else if (key === 'dataset') Object.assign(node.dataset, value);
    else /** @type {Record<string, unknown>} */ (/** @type {unknown} */ (node))[key] = value;
  }
  node.append(...children.filter((c) => c !== null && c !== undefined));
  return node;
}

/** @param {string | null | undefined} id */
export const short = (id) =>
  id
    ? String(id)
        .replace(/^session_/, '')
        .slice(0, 8)
    : '';
/** @param {number} ms */
export const time = (ms) => {
  const d = new Date(ms);
  return `${d.toLocaleTimeString([], { hour12: false })}.${String(d.getMilliseconds()).padStart(3, '0')}`;
};
