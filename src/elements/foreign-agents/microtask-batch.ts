/**
 * Work done once per batch of changes: `schedule()` any number of times in a task and it runs once, a
 * microtask later — after the page's code that made the changes, so an element a framework moves (out
 * of the document and back within the task) looks the same then as before. `flush()` runs a scheduled
 * batch now, for a synchronous read that must see this task's changes. The foreign agents' parts are
 * plain classes and batch this way; the elements batch in Lit's update cycle.
 */
export type MicrotaskBatch = {
  schedule(): void;
  /** Runs the scheduled batch now, if there is one. */
  flush(): void;
};

export function microtaskBatch(run: () => void): MicrotaskBatch {
  let scheduled = false;
  const batch: MicrotaskBatch = {
    schedule() {
      if (!scheduled) queueMicrotask(batch.flush);
      scheduled = true;
    },
    flush() {
      if (!scheduled) return;
      scheduled = false;
      run();
    },
  };
  return batch;
}
