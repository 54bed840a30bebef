/**
 * What 80 columns cut is read whole without a key: the strip under the table shows the cursor
 * row's cut cells (REASON/PROBLEMS first, then names), wrapped, and follows the cursor; where
 * nothing is cut (160×45 Sessions) there is no strip. TARGET reads whole at 100, 120 and 160
 * columns (REASON's first 32 cells, then TARGET). Expected texts come from the incident scenario
 * (src/sim/scenarios/incident.ts): session 7 behind the down portal 10.0.0.12:3260 with sdg,
 * session 5 a kubelet dir with no pod, sdc a path of streaming/kafka-0's map; target names
 * …:metrics-tsdb … …:nightly-backup (16 cells, the longest).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type DemoConsole, mountDemo } from './helpers/demo.js';

let c: DemoConsole | undefined;
afterEach(async () => {
  await c?.close();
  c = undefined;
});

const REASON_7 = '› REASON portal 10.0.0.12:3260 down; session FAILED; sdg blocked';

describe('the strip under the table at 80×24', () => {
  it('reads the cursor row’s cut REASON and TARGET whole and follows the cursor', async () => {
    c = await mountDemo({ scenario: 'incident', columns: 80, rows: 24 });
    let f = await c.waitFor(REASON_7);
    expect(f).toMatch(/^\s+…:metrics-tsdb$/m);
    // Rows by severity: 7, 3, 2, 4, 5; session 5's reason is cut in its column.
    await c.press('j', 'j', 'j', 'j');
    f = await c.waitFor('› REASON kubelet dir, no pod or mount');
    expect(f).not.toContain(REASON_7);
    for (const l of f.split('\n')) expect([...l].length).toBeLessThanOrEqual(80);
  });

  it('in Devices names the pod behind sdc', async () => {
    c = await mountDemo({ scenario: 'incident', columns: 80, rows: 24 });
    await c.press('4');
    await c.waitFor('DEVICE');
    await c.press('j', 'j', 'j');
    await c.waitFor('› PROBLEMS ! sdc transport-offline  ·  POD streaming/kafka-0');
  });
});

describe('160×45 and the widths between', () => {
  it('at 160×45 nothing is cut in Sessions, so no strip', async () => {
    c = await mountDemo({ scenario: 'incident', columns: 160, rows: 45 });
    const f = await c.waitFor('portal 10.0.0.12:3260 down; session FAILED; sdg blocked');
    expect(f).not.toContain('› REASON');
    expect(f).toContain('…:nightly-backup ');
  });

  it.each([100, 120, 160])('at %i columns TARGET reads whole', async (columns) => {
    c = await mountDemo({ scenario: 'incident', columns, rows: 30 });
    const f = await c.waitFor('…:nightly-backup ');
    for (const t of [
      '…:metrics-tsdb ',
      '…:kafka-data ',
      '…:old-logs ',
      '…:grafana-data ',
      '…:postgres-data ',
    ])
      expect(f).toContain(t);
  });
});
