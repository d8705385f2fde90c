// Put first in <head> of demo/cdn.html by test/plugins/frameworks.mjs when test/interop/cdn.test.ts
// loads it: a classic script, so it runs before anything else on the page and sees every Content
// Security Policy violation from the first one on. Plain script, no test framework: the page is strict.
window.cspViolations = [];
document.addEventListener('securitypolicyviolation', (event) => {
  window.cspViolations.push({
    directive: event.effectiveDirective || event.violatedDirective,
    blocked: event.blockedURI,
    sample: event.sample,
    where: `${event.sourceFile}:${event.lineNumber}`,
  });
});
