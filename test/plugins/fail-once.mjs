// A Koa middleware for the test server: `POST /__fail-once?path=<suffix>` makes the next request whose
// path ends with <suffix> fail with 404, once, for the page that asked. Used to test what the kit does
// when a lazily imported chunk cannot be loaded. `Vary: *`: the test runner marks every response
// cacheable, and without it the next page (or a retry) would get the failure from the browser's cache.
const armed = new Set();

export async function failOnce(ctx, next) {
  if (ctx.path === '/__fail-once' && ctx.method === 'POST') {
    const suffix = String(ctx.query.path ?? '');
    if (suffix) armed.add(suffix);
    ctx.status = 204;
    return;
  }
  for (const suffix of armed) {
    if (ctx.path.endsWith(suffix)) {
      armed.delete(suffix);
      ctx.status = 404;
      ctx.set('Vary', '*');
      ctx.body = 'failed on purpose (test/plugins/fail-once.mjs)';
      return;
    }
  }
  await next();
}
