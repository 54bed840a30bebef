/**
 * One hint, two surfaces (src/engine/text/surface.ts): the CLI keeps the planner's words; the
 * console reads its own keys. The hints are ones the planners write (csi-claims.ts, csi-dirs.ts,
 * consent.ts, problems.ts); the expected console words are written out by hand.
 */
import { describe, expect, it } from 'vitest';
import { hintFor } from '../../src/engine/text/surface.js';

const ACTIONS = [
  { id: 'cleanup', key: 'C', title: 'Clean up' },
  { id: 'scan', key: 'n', title: 'Scan one LUN' },
  { id: 'attach', key: 'a', title: 'Attach' },
];

describe('hintFor', () => {
  it('the CLI keeps the text as planned', () => {
    const t = 'let Trident finish; --force tears it down anyway';
    expect(hintFor(t, 'cli', ACTIONS)).toBe(t);
  });

  it('the console names the override act, :write and the action keys', () => {
    expect(hintFor('let Trident finish; --force tears it down anyway', 'console', ACTIONS)).toBe(
      'let Trident finish; o in the plan (override) tears it down anyway',
    );
    expect(
      hintFor('add --write (in the console: type :write) to allow changes to the node', 'console', ACTIONS),
    ).toBe('type :write to allow changes to the node');
    expect(hintFor('iscsi-console scan 3 1 --write', 'console', ACTIONS)).toBe(
      'n (Scan one LUN) on its row (scan 3 1)',
    );
    expect(
      hintFor('clean up the session first (iscsi-console cleanup 3); then retry', 'console', ACTIONS),
    ).toBe('clean up the session first (C (Clean up) on its row (cleanup 3)); then retry');
  });

  it('a command with CLI-only flags stays a command; --remove-driver-files is tab in the cleanup plan', () => {
    const attach = 'iscsi-console attach --manifest <pv.yaml> --write';
    expect(hintFor(attach, 'console', ACTIONS)).toBe(attach);
    expect(hintFor('clean up the session with --remove-driver-files', 'console', ACTIONS)).toBe(
      'clean up the session with tab in its cleanup plan (remove the driver file)',
    );
  });
});
