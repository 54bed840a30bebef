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

/** A row's ref, and the row's own identity: what the object found at each path must carry. */
interface RowRef {
  ref: StatusRef;
  owns: (found: Record<string, unknown>, path: string) => boolean;
}

const has = (o: Record<string, unknown>, fields: Record<string, unknown>) =>
  Object.entries(fields).every(([k, v]) => o[k] === v);

function refsOf(snap: Snapshot): RowRef[] {
  return [
    ...snap.sessions.map((s) => ({
      ref: { kind: 'session' as const, key: s.key },
      owns: (o: Record<string, unknown>) => has(o, { sid: s.sid, targetIqn: s.targetIqn, portal: s.portal }),
    })),
    ...snap.sessions.map((s) => ({
      ref: { kind: 'target' as const, iqn: s.targetIqn, portal: s.portal },
      // A session of the target, a kubelet volume naming its portal, or its hosts in portalHostMap.
      owns: (o: Record<string, unknown>, path: string) =>
        path.startsWith('.portalHostMap')
          ? path === `.portalHostMap[${JSON.stringify(s.targetIqn)}][${JSON.stringify(s.portal)}]`
          : path.startsWith('.sessions')
            ? has(o, { targetIqn: s.targetIqn, portal: s.portal })
            : o.portal === s.portal ||
              ((o.metadata as { Portals?: string[] } | undefined)?.Portals ?? []).includes(s.portal),
    })),
    ...snap.sessions.flatMap((s) =>
      s.devices.map((d) => ({
        ref: { kind: 'device' as const, key: d.key },
        owns: (o: Record<string, unknown>) => has(o, { name: d.name, hctl: d.hctl }),
      })),
    ),
    ...snap.multipath.map((m) => ({
      ref: { kind: 'multipath' as const, name: m.name },
      owns: (o: Record<string, unknown>) => o.name === m.name,
    })),
    ...snap.kubelet.volumes.map((v) => ({
      ref: { kind: 'volume' as const, path: v.path },
      owns: (o: Record<string, unknown>) => o.path === v.path,
    })),
    ...(snap.csi?.volumes ?? []).map((v) => ({
      ref: { kind: 'volume' as const, path: v.stagingPath ?? v.publish[0]?.path ?? '' },
      owns: (o: Record<string, unknown>) => has(o, { volumeHandle: v.volumeHandle, driver: v.driver }),
    })),
    ...snap.nodeRecords.map((r) => ({
      ref: { kind: 'record' as const, path: r.path },
      owns: (o: Record<string, unknown>) => o.path === r.path,
    })),
    ...snap.ifaces.map((x) => ({
      ref: { kind: 'iface' as const, path: x.path },
      owns: (o: Record<string, unknown>) => o.path === x.path,
    })),
  ];
}

describe('statusParts', () => {
  for (const scenario of ['incident', 'csi']) {
    it(`finds every object of the ${scenario} scenario at its path in status --json`, async () => {
      const snap = await scenarioSnapshot(scenario);
      const doc = JSON.parse(statusJson(snap)) as unknown;
      const rows = refsOf(snap);
      expect(rows.length).toBeGreaterThan(5);
      for (const { ref, owns } of rows) {
        const parts = statusParts(snap, ref);
        expect(parts.length, JSON.stringify(ref)).toBeGreaterThan(0);
        for (const p of parts) {
          const found = jqPath(doc, p.path);
          expect(JSON.parse(JSON.stringify(p.value))).toEqual(found);
          // The object at the path is this row's, by the row's own identity (not statusParts' match).
          expect(owns(found as Record<string, unknown>, p.path), `${JSON.stringify(ref)} → ${p.path}`).toBe(
            true,
          );
        }
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
