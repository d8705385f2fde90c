// `validate`: the same schema and documents through our compiled validator, Ajv (compiled with
// `new Function`: the speed reference, not CSP-safe) and @cfworker/json-schema (interpreting, CSP-safe).
// Each run times a fixed number of validations (calibrated to about `sampleMs`); the validators take
// turns run by run, so a noisy moment on the machine hits all three alike.
import { Validator } from '@cfworker/json-schema';
import Ajv from 'ajv';
import { checkArgsSchema } from '../../dist/core/schema/check.js';
import { compileArgsValidator } from '../../dist/core/schema/compile.js';
import { DOCUMENTS, SCHEMA } from './fixtures.js';
import { collectGarbage, expose } from './timing.js';

function validators() {
  const checked = checkArgsSchema(SCHEMA);
  if (checked.error) throw new Error(`bench schema refused by checkArgsSchema: ${checked.error.message}`);
  const ours = compileArgsValidator(SCHEMA);
  const ajv = new Ajv().compile(SCHEMA);
  const cfworker = new Validator(SCHEMA, '2020-12', true);
  return [
    { id: 'ours', label: 'pedelec-elements (compiled closures)', valid: (doc) => ours(doc) === null },
    { id: 'ajv', label: 'Ajv 8 (compiled, new Function)', valid: (doc) => ajv(doc) },
    { id: 'cfworker', label: '@cfworker/json-schema (interpreting)', valid: (doc) => cfworker.validate(doc).valid },
  ];
}

/** Validations per batch so that one batch takes about `targetMs`. Doubles as the warm-up. */
function calibrate(valid, doc, targetMs) {
  let n = 1;
  for (let round = 0; round < 40; round++) {
    const t0 = performance.now();
    for (let i = 0; i < n; i++) valid(doc);
    const elapsed = performance.now() - t0;
    if (elapsed >= targetMs / 4) return Math.max(1, Math.round((n * targetMs) / elapsed));
    n *= 2;
  }
  return n;
}

function opsPerSecond(valid, doc, n) {
  let sink = 0;
  const t0 = performance.now();
  for (let i = 0; i < n; i++) if (valid(doc)) sink++;
  const elapsed = performance.now() - t0;
  if (sink !== 0 && sink !== n) throw new Error('a validator changed its verdict between calls');
  return (n * 1000) / elapsed;
}

expose('validate', async ({ runs = 7, sampleMs = 40 } = {}) => {
  const list = validators();
  // The validators must agree, or the comparison is meaningless.
  for (const { name, doc, valid } of DOCUMENTS) {
    for (const v of list) {
      if (v.valid(doc) !== valid) throw new Error(`${v.id} says ${name} is ${valid ? 'invalid' : 'valid'}`);
    }
  }
  const cases = [];
  for (const { name, doc, valid } of DOCUMENTS) {
    const batch = list.map((v) => calibrate(v.valid, doc, sampleMs));
    const samples = list.map(() => []);
    for (let run = 0; run < runs; run++) {
      list.forEach((v, k) => {
        collectGarbage();
        samples[k].push(opsPerSecond(v.valid, doc, batch[k]));
      });
    }
    cases.push({ name, valid, opsPerSecond: Object.fromEntries(list.map((v, k) => [v.id, samples[k]])) });
  }
  return { validators: list.map(({ id, label }) => ({ id, label })), cases };
});
