import { expect } from '@open-wc/testing';

describe('CDN file', () => {
  it('loads without errors or console output and hides <pedelec-guidance>', async () => {
    const calls: string[] = [];
    const methods = ['log', 'info', 'warn', 'error', 'debug'] as const;
    const originals = methods.map((m) => console[m]);
    methods.forEach((m) => {
      console[m] = (...args: unknown[]) => calls.push(`${m}: ${args.join(' ')}`);
    });
    const errors: string[] = [];
    const onError = (e: ErrorEvent) => errors.push(e.message);
    window.addEventListener('error', onError);
    try {
      const mod = await import(/* @vite-ignore */ new URL('/cdn/pedelec-elements.js', location.href).href);
      expect(mod.normalizeError).to.be.a('function');
    } finally {
      methods.forEach((m, i) => (console[m] = originals[i]));
      window.removeEventListener('error', onError);
    }
    expect(errors).to.deep.equal([]);
    expect(calls).to.deep.equal([]);
    const guidance = document.createElement('pedelec-guidance');
    document.body.append(guidance);
    expect(getComputedStyle(guidance).display).to.equal('none');
    guidance.remove();
  });
});
