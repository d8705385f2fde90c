/**
 * Work done once per batch of changes: the returned `schedule` may be called any number of times in a
 * task, and `run` runs once, a microtask later — after the page's code that made the changes, so an
 * element a framework moves (out of the document and back within the task) looks the same then as
 * before. The foreign agents' parts are plain classes and batch this way; the elements batch in Lit's
 * update cycle.
 */
export function microtaskBatch(run: () => void): () => void {
  let scheduled = false;
  return () => {
    if (scheduled) return;
    scheduled = true;
    queueMicrotask(() => {
      scheduled = false;
      run();
    });
  };
}
