/**
 * Where the CDN file's lazily defined elements look for their tags. A `<pedelec-session>` that
 * connects hands its root here, so a `<pedelec-chat>` beside it in a shadow root is found too. Nothing
 * watches unless the CDN file installed its loader: npm's `define.js` defines every element at once.
 */
let watcher: ((root: Node) => void) | null = null;

/** Installs the function told about each root a session connects in (the CDN loader). */
export function watchRootsWith(watch: (root: Node) => void): void {
  watcher = watch;
}

/** A session connected in `root`. */
export function rootInUse(root: Node): void {
  watcher?.(root);
}
