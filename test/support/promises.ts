/** Promise helpers shared by the tests. */

export type Tracked<T> = { state: 'pending' | 'fulfilled' | 'rejected'; value?: T; error?: any; promise: Promise<T> };

/** Follows a promise without ever leaving its rejection unhandled. */
export function track<T>(promise: Promise<T>): Tracked<T> {
  const t: Tracked<T> = { state: 'pending', promise };
  promise.then(
    (value) => {
      t.state = 'fulfilled';
      t.value = value;
    },
    (error) => {
      t.state = 'rejected';
      t.error = error;
    },
  );
  return t;
}

/** The value a promise rejects with; fails the test when it resolves. */
export async function rejection(promise: Promise<unknown>): Promise<any> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the promise to reject, but it resolved');
}

/** Resolves once `promise` settles, either way (it never rejects): await it, then assert on what `track` saw. */
export function settled(promise: Promise<unknown>): Promise<void> {
  return promise.then(
    () => undefined,
    () => undefined,
  );
}
