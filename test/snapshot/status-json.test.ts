/**
 * The console's `y` shows the objects of `status --json` a row stands for: every part's jq path
 * resolves, in the document `status --json` prints for the same snapshot, to the very object shown.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Snapshot } from '../../src/engine/model.js';
import { takeSnapshot } from '../../src/engine/snapshot/index.js';
import { type StatusRef, statusJson, statusParts } from '../../src/engine/snapshot/status-json.js';
import { openSimHost } from '../../src/sim/index.js';
import { jqPath } from '../helpers/jq-path.js';

async function scenarioSnapshot(scenario: string): Promise<Snapshot> {
  const dir = mkdtempSync(join(tmpdir(), 'ic-status-json-'));
  const { host, close } = await openSimHost({ scenario, clock: 'manual', dir });
  try {
    return takeSnapshot(host, { kubeletRoot: '/var/lib/kubelet' });
  } finally {
    await close();
    rmSync(dir, { recursive: true, force: true });
  }
}

function refsOf(snap: Snapshot): StatusRef[] {
  return [
    ...snap.sessions.map((s) => ({ kind: 'session' as const, key: s.key })),
    ...snap.sessions.map((s) => ({ kind: 'target' as const, iqn: s.targetIqn, portal: s.portal })),
    ...snap.sessions.flatMap((s) => s.devices.map((d) => ({ kind: 'device' as const, key: d.key }))),
    ...snap.multipath.map((m) => ({ kind: 'multipath' as const, name: m.name })),
    ...snap.kubelet.volumes.map((v) => ({ kind: 'volume' as const, path: v.path })),
    ...(snap.csi?.volumes ?? []).map((v) => ({
      kind: 'volume' as const,
      path: v.stagingPath ?? v.publish[0]?.path ?? '',
    })),
    ...snap.nodeRecords.map((r) => ({ kind: 'record' as const, path: r.path })),
    ...snap.ifaces.map((x) => ({ kind: 'iface' as const, path: x.path })),
  ];
}

describe('statusParts', () => {
  for (const scenario of ['incident', 'csi']) {
    it(`finds every object of the ${scenario} scenario at its path in status --json`, async () => {
      const snap = await scenarioSnapshot(scenario);
      const doc = JSON.parse(statusJson(snap)) as unknown;
      const refs = refsOf(snap);
      expect(refs.length).toBeGreaterThan(5);
      for (const ref of refs) {
        const parts = statusParts(snap, ref);
        expect(parts.length, JSON.stringify(ref)).toBeGreaterThan(0);
        for (const p of parts) expect(JSON.parse(JSON.stringify(p.value))).toEqual(jqPath(doc, p.path));
      }
    }, 60_000);
  }

  it('finds nothing for a row that is gone', async () => {
    const snap = await scenarioSnapshot('incident');
    expect(statusParts(snap, { kind: 'session', key: 'iqn.2026-01.x:gone|10.0.0.1:3260|default' })).toEqual(
      [],
    );
  }, 60_000);
});
