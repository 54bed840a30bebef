/** The portal matrix (portal × session state × path state) in the Targets view and the session detail, on the simulator. */
import { afterEach, describe, expect, it } from 'vitest';
import { portalMatrixLines } from '../../src/ui/views/portal-matrix.js';
import { targetRows } from '../../src/ui/views/targets.js';
import type { SimEnv } from '../actions/helpers.js';
import { degradedVolume, GLOBAL, IQN, P1, P2 } from '../helpers/degraded-volume.js';

let env: SimEnv | undefined;
afterEach(async () => {
  await env?.close();
  env = undefined;
});

describe('portal matrix', () => {
  it('Targets: the missing portal row names the problem and acts on the volume (restore); PATHS shows each path', async () => {
    env = await degradedVolume({ pod: true });
    const rows = targetRows(env.snap()).filter((r) => r.fields.target === IQN);
    const byPortal = Object.fromEntries(rows.map((r) => [r.fields.portal, r]));
    expect(byPortal[P1]?.fields.paths).toBe('LUN 1 sda running');
    expect(byPortal[P1]?.scope).toBe('session');
    expect(byPortal[P2]?.fields.paths).toBe('LUN 1 -');
    expect(byPortal[P2]?.scope).toBe('volume');
    expect(byPortal[P2]?.actionKey).toBe(GLOBAL);
    expect(byPortal[P2]?.fields.problems).toContain(
      `volume pv-x has 1 of 2 paths: portal ${P2} not logged in`,
    );
  });

  it('session detail: every expected portal with its session and path state, the problem and its command', async () => {
    env = await degradedVolume({ pod: true });
    const snap = env.snap();
    const text = portalMatrixLines(snap, IQN, P1).map((l) => l.text);
    const sid = snap.sessions[0]!.sid;
    expect(text[1]).toBe('Portals (2 expected, 1 logged in, 1 missing)');
    expect(text[2]).toMatch(
      new RegExp(`^ ▸${P1.replace(/\./g, '\\.')}\\s+expected\\s+${sid} LOGGED_IN\\s+LUN 1 sda running$`),
    );
    expect(text[3]).toMatch(
      new RegExp(`^  ${P2.replace(/\./g, '\\.')}\\s+expected\\s+not logged in\\s+LUN 1 -$`),
    );
    expect(text.slice(4)).toEqual([
      `  ⚠ volume pv-x has 1 of 2 paths: portal ${P2} not logged in`,
      '      → iscsi-console restore pv-x --write',
    ]);
  });
});
