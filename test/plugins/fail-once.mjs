// A Koa middleware for the test server: `POST /__fail-once?path=<part>` makes the next request whose
// path contains <part> fail with 404, once. Used to test what the kit does when a lazily imported
// chunk cannot be loaded (test/interop/cdn-lazy-chat.test.ts: the CDN file's chat chunk).
//
// The test runner marks every response cacheable for a year, and all test pages share one browser
// cache: a chunk another page loaded would never be asked for again. So responses for the paths a
// test may make fail carry `Vary: *` (never reused from a cache), the failure included.
const FAILABLE = ['/cdn/pedelec-elements-pedelec-chat-'];
const armed = new Set();

export async function failOnce(ctx, next) {
  if (ctx.path === '/__fail-once' && ctx.method === 'POST') {
    const suffix = String(ctx.query.path ?? '');
    if (!FAILABLE.includes(suffix)) ctx.throw(400, `fail-once: ${suffix} is not in FAILABLE`);
    armed.add(suffix);
    ctx.status = 204;
    return;
  }
  const suffix = FAILABLE.find((s) => ctx.path.includes(s));
  if (suffix === undefined) return next();
  if (armed.delete(suffix)) {
    ctx.status = 404;
    ctx.body = 'failed on purpose (test/plugins/fail-once.mjs)';
  } else {
    await next();
  }
  ctx.set('Vary', '*');
}
