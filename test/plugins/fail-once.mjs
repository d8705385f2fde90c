// A Koa middleware for the test server: `/__failing/<name>/<path>` serves `/<path>`, except that the
// first request there for the CDN file's chat chunk fails with 404. A page loaded under that prefix
// that names its files relatively (test/interop/lazy-chat/page.html) fetches the kit and its chunks
// under it too. Used to test what the kit does when a lazily imported chunk cannot be loaded
// (test/interop/cdn-lazy-chat.test.ts).
//
// Each test picks a name of its own, so the failure is its own: pages running side by side never take
// it, and no cached copy of the chunk (all test pages share one browser cache) is under its URLs.
const PREFIX = /^\/__failing\/([\w-]+)(\/.*)$/;
const CHAT_CHUNK = /^\/cdn\/pedelec-elements-pedelec-chat-[\w-]+\.js$/;
const failed = new Set();

export async function failOnce(ctx, next) {
  const match = PREFIX.exec(ctx.path);
  if (!match) return next();
  const [, name, path] = match;
  if (CHAT_CHUNK.test(path) && !failed.has(name)) {
    failed.add(name);
    ctx.status = 404;
    ctx.body = 'failed on purpose (test/plugins/fail-once.mjs)';
    return;
  }
  ctx.path = path;
  return next();
}
