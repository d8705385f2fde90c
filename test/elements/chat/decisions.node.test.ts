/**
 * The chat's row for a decision on a consequential tool's call (src/elements/chat/decisions.ts), in
 * Node: what was decided and who decided, for each decider — and a call left to the browser's
 * confirmation never claims that anyone approved it.
 */
import { describe, it } from 'node:test';
import type { ToolApprovalDecision } from '../../../src/core/index.js';
import { decisionText } from '../../../src/elements/chat/decisions.js';
import { expect } from '../../support/expect.js';

const decision = (fields: Partial<ToolApprovalDecision>): ToolApprovalDecision => ({
  tool: 'update_counter',
  args: { delta: 1 },
  via: 'pedelec',
  decidedBy: 'chat',
  approved: true,
  at: 0,
  ...fields,
});

describe('chat decision rows', () => {
  it('says what was decided and who decided', () => {
    expect(decisionText(decision({}))).to.equal('Approved update_counter (by you in the chat)');
    expect(decisionText(decision({ decidedBy: 'page', approved: false }))).to.equal(
      'Rejected update_counter (by the page)',
    );
    expect(decisionText(decision({ via: 'mcp', decidedBy: 'mcp-client' }))).to.equal(
      'Approved update_counter (by the MCP client)',
    );
    expect(decisionText(decision({ via: 'mcp', decidedBy: 'operator', approved: false }))).to.equal(
      'Rejected update_counter (by the operator)',
    );
  });

  it('a rejection shows its reason', () => {
    expect(decisionText(decision({ approved: false, reason: 'not today' }))).to.equal(
      'Rejected update_counter (by you in the chat): not today',
    );
  });

  it('a WebMCP call is left to the browser: nobody is said to have approved it', () => {
    const text = decisionText(decision({ via: 'webmcp', decidedBy: 'browser-hint' }));
    expect(text).to.equal("update_counter: left to the browser's confirmation (WebMCP)");
    expect(text).to.not.match(/approved/i);
  });
});
