/**
 * One plan per intent: marking both sessions of a multipath target in the console and pressing `l`
 * or `c` is planned by the planner the CLI uses for that intent (`logout <iqn>`, `cleanup <sid>`),
 * which flushes the map before its last path goes — not two one-session plans concatenated, which
 * deleted every path of the map and left it with 0 paths. Over the real app layer and engine on the
 * `incident` simulator, with kafka-data's pod gone and its session left behind (both paths stale).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { actionContext } from '../../src/engine/actions/context.js';
import { findAction } from '../../src/engine/actions/registry.js';
import type { Plan } from '../../src/engine/actions/types.js';
import type { Snapshot } from '../../src/engine/model.js';
import { takeSnapshot } from '../../src/engine/snapshot/index.js';
import type { SimHost } from '../../src/sim/index.js';
import { DEMO_STATE_DIR, type DemoConsole, mountDemo } from './helpers/demo.js';
import { KEY } from './helpers/render-tui.js';

const KUBELET_ROOT = '/var/lib/kubelet';
const KAFKA = 'iqn.2026-01.lab.example:kafka-data';

/** kubelet's detach of kafka-data's volume whose logout never ran: both sessions stale, the map stays. */
async function leaveKafkaStale(host: SimHost): Promise<void> {
  const v = takeSnapshot(host, { kubeletRoot: KUBELET_ROOT }).kubelet.volumes.find((x) => x.iqn === KAFKA)!;
  await host.sim.kubelet.detachLeavingSession(v.path);
}

let m: DemoConsole | undefined;
afterEach(async () => {
  await m?.close();
  m = undefined;
});

/** The console on `incident` with kafka-data left stale, both its sessions marked; the node it planned on. */
async function markKafka(): Promise<{ t: DemoConsole; snap: Snapshot }> {
  const t = await mountDemo({
    scenario: 'incident',
    write: true,
    columns: 200,
    rows: 60,
    prepare: leaveKafkaStale,
  });
  m = t;
  await t.press('1', '/');
  await t.type(`target=${KAFKA}`);
  await t.press(KEY.enter);
  await t.waitFor(/ of 2 \(\d+ total\)/);
  await t.press(' ', ' ');
  await t.waitFor('2 marked');
  return { t, snap: t.backend.store.getState().snapshot! };
}

/** The CLI's plan for the same words on the same snapshot (inputFromCli → plan). */
function cliPlan(t: DemoConsole, action: string, args: string[], snap: Snapshot): Plan {
  const def = findAction(action);
  const ctx = actionContext({
    host: t.host,
    kubeletRoot: KUBELET_ROOT,
    stateDir: DEMO_STATE_DIR,
    write: true,
  });
  return def.plan(def.inputFromCli(args, {}, snap), snap, ctx);
}

function shownPlan(t: DemoConsole): Plan {
  const d = t.ui.getState().dialog;
  if (d?.kind !== 'plan') throw new Error(`no plan dialog (${d?.kind})`);
  return d.plan;
}

/** Index of the first step matching, or -1. */
const at = (p: Plan, f: (argv: string[] | undefined, path: string | undefined) => boolean) =>
  p.steps.findIndex((s) => f(s.argv, s.write?.path));

/** Applies the open plan by typing its token; waits for the outcome. */
async function confirm(t: DemoConsole, p: Plan, title: string): Promise<string> {
  await t.waitFor(`Type ${p.confirmToken} to apply on`);
  await t.type(p.confirmToken!);
  await t.press(KEY.enter);
  return t.waitFor(new RegExp(`${title}.* (succeeded|failed)`), 30_000);
}

/** What the applied plan left: maps without paths, sessions to kafka-data (read fresh from the node). */
function leftOver(host: SimHost): { pathless: string[]; kafka: number } {
  const s = takeSnapshot(host, { kubeletRoot: KUBELET_ROOT });
  return {
    pathless: s.multipath.filter((x) => x.slaves.length === 0).map((x) => `${x.name} (${x.alias})`),
    kafka: s.sessions.filter((x) => x.targetIqn === KAFKA).length,
  };
}

describe('marked rows are one intent', () => {
  it('L on both sessions of a multipath target is `logout <iqn>`: the map is flushed first, none is left pathless', async () => {
    const { t, snap } = await markKafka();
    const map = snap.multipath.find(
      (x) =>
        x.slaves.length === 2 &&
        snap.sessions.some(
          (s) => s.targetIqn === KAFKA && s.devices.some((d) => d.name && x.slaves.includes(d.name)),
        ),
    )!;
    expect(map).toBeDefined();
    await t.press('l');
    await t.waitFor('Plan: Log out');
    const p = shownPlan(t);
    const cli = cliPlan(t, 'logout', [KAFKA], snap);
    const f = await confirm(t, p, 'Log out');
    // What the node is left with first: the damage a concatenated plan did (a 0-path map).
    expect(leftOver(t.host)).toEqual({ pathless: [], kafka: 0 });
    expect(f).toContain('succeeded');
    // The CLI's plan for the same intent, step for step, and no concatenated parts.
    expect(p.parts).toBeUndefined();
    expect(p.steps).toEqual(cli.steps);
    expect(p.refusals).toEqual([]);
    // multipath -f before either path's device/delete.
    const flush = at(p, (a) => a?.join(' ') === `multipath -f /dev/${map.name}`);
    expect(flush).toBeGreaterThanOrEqual(0);
    for (const sd of map.slaves) {
      const del = at(p, (_a, path) => path === `/sys/block/${sd}/device/delete`);
      expect(del).toBeGreaterThan(flush);
    }
  }, 90_000);

  it('C on both sessions of a multipath target is `cleanup <sid>` (one plan, the map flushed first)', async () => {
    const { t, snap } = await markKafka();
    await t.press('c');
    await t.waitFor('Plan: Clean up');
    const p = shownPlan(t);
    const first = snap.sessions.find((x) => x.targetIqn === KAFKA)!;
    expect(p.parts).toBeUndefined();
    expect(p.steps).toEqual(cliPlan(t, 'cleanup', [String(first.sid)], snap).steps);
    expect(at(p, (a) => a?.[0] === 'multipath' && a[1] === '-f')).toBeGreaterThanOrEqual(0);
    const f = await confirm(t, p, 'Clean up session');
    expect(f).toContain('succeeded');
    expect(leftOver(t.host)).toEqual({ pathless: [], kafka: 0 });
  }, 90_000);
});
