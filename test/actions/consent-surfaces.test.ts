/**
 * One consent policy (engine/actions/consent.ts), two surfaces: for every refusal kind the planners
 * emit, the same plan goes through the CLI's action command (on a terminal and headless) and
 * through the console's key dispatcher, and both must end the same way — the plain token applies
 * only an unrefused plan, the override act (CLI --force + its token or --yes; console `o` + its
 * token) applies only a plan whose refusals are all overridable, and nothing applies a held one.
 */

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Key } from 'ink';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStore } from 'zustand/vanilla';
import type { ConsoleBackend } from '../../src/app/backend.js';
import type { CommandContext, GlobalOptions, Output } from '../../src/cli/command.js';
import { actionCommand } from '../../src/cli/commands/actions.js';
import { overrideToken, READ_ONLY_REFUSAL } from '../../src/engine/actions/consent.js';
import { readJournal } from '../../src/engine/actions/journal-read.js';
import { EMPTY_BLAST } from '../../src/engine/actions/plan-kit.js';
import type { ActionDef, ApplyOptions, Plan, Refusal } from '../../src/engine/actions/types.js';
import { RefusedError } from '../../src/engine/errors.js';
import { openSimHost, type SimHost } from '../../src/sim/index.js';
import { dialogFor } from '../../src/ui/dialogs/registry.js';
import { type DispatchContext, dispatchKey, openPlan } from '../../src/ui/dispatch.js';
import { BARE_KEY } from '../../src/ui/keymap.js';
import { createUiStore } from '../../src/ui/view-store.js';
import type { NodeState } from '../../src/watchers/types.js';
import { handFilledParts } from '../helpers/backend-parts.js';

/**
 * Every refusal kind (id, overridable) the planners emit. The guard below reads the planners'
 * source, so a new kind fails here until it has a row (and with it, proof both surfaces agree).
 */
const KINDS: readonly { id: string; overridable: boolean; from: string }[] = [
  { id: 'read-only', overridable: false, from: 'consent.ts READ_ONLY_REFUSAL (every planner, apply)' },
  { id: 'already-attached', overridable: false, from: 'attach' },
  { id: 'outage', overridable: true, from: 'cleanup outageRefusals' },
  { id: 'in-use', overridable: false, from: 'cleanup, session-teardown' },
  { id: 'open', overridable: false, from: 'cleanup (block volume), teardown, flush' },
  { id: 'mounted', overridable: false, from: 'lookup usesOf → teardown refusalOfUse, flush' },
  { id: 'swap', overridable: false, from: 'lookup usesOf → teardown refusalOfUse, flush' },
  { id: 'held', overridable: false, from: 'teardown, flush' },
  { id: 'session-active', overridable: false, from: 'forget' },
  { id: 'session-down', overridable: true, from: 'online, rescan' },
  { id: 'session-down', overridable: false, from: 'scan' },
  { id: 'no-host', overridable: false, from: 'scan' },
  { id: 'foreign', overridable: true, from: 'session-teardown' },
  { id: 'pod-mounts', overridable: true, from: 'unmount' },
  { id: 'pod-volume', overridable: true, from: "unmount (a pod's own volume mount)" },
  { id: 'not-kubelet-mount', overridable: false, from: 'unmount (anything but a kubelet volume mount)' },
  { id: 'map-pathless', overridable: false, from: 'combine, plan-selections (a map left without paths)' },
  { id: 'path-escape', overridable: false, from: 'path-guard (attach, cleanup)' },
  { id: 'iscsid-down', overridable: false, from: 'iscsid-needed (every planner, through the registry)' },
  { id: 'driver-claimed', overridable: true, from: 'csi-claims (cleanup, logout)' },
  { id: 'longhorn', overridable: true, from: 'csi-claims (cleanup, logout)' },
  {
    id: 'session-exists',
    overridable: false,
    from: "list-luns (the wizard lists that session's LUNs instead)",
  },
  { id: 'csi-block', overridable: false, from: 'csi-dirs (cleanup of a CSI volume path)' },
  { id: 'csi-layout', overridable: false, from: 'csi-dirs (cleanup of a CSI volume path)' },
  { id: 'pod-running', overridable: false, from: 'csi-dirs (cleanup of a CSI volume path)' },
  { id: 'csi-not-empty', overridable: false, from: 'csi-dirs (cleanup of a CSI volume path)' },
  { id: 'no-path', overridable: false, from: 'restore (a volume with no path at all)' },
  { id: 'in-use-without-map', overridable: false, from: 'restore (a device in use with no multipath map)' },
  { id: 'chap', overridable: false, from: 'restore (a missing record would need CHAP from another)' },
  { id: 'portal-silent', overridable: false, from: 'restore (the last probe found the portal silent)' },
  { id: 'not-expected', overridable: false, from: 'restore (a portal no volume expects)' },
  { id: 'nothing-missing', overridable: false, from: 'restore (nothing to put back)' },
];

const ACTIONS_DIR = join(import.meta.dirname, '../../src/engine/actions');

/** (id, overridable) of every refusal literal in the planners' source. */
function refusalLiterals(): string[] {
  const found = new Set<string>();
  for (const f of readdirSync(ACTIONS_DIR).filter((n) => n.endsWith('.ts'))) {
    const text = readFileSync(join(ACTIONS_DIR, f), 'utf8');
    // `id: 'x',` then reason/hint lines, then `overridable: true|false` in the same object literal.
    for (const m of text.matchAll(
      /id: '([a-z-]+)',\n(?:(?![^\n]*\bid: )[^\n]*\n){0,6}?\s*overridable: (true|false)/g,
    ))
      found.add(`${m[1]}:${m[2]}`);
    // A use of a device or map (lookup.ts usesOf) is a refusal of its kind (teardown refusalOfUse),
    // never overridable.
    for (const m of text.matchAll(/\{ kind: '([a-z-]+)', what: /g)) found.add(`${m[1]}:false`);
  }
  return [...found].sort();
}

const HOST = 'sim-node-1';
const PLAIN = '7';

function refusal(id: string, overridable: boolean): Refusal {
  return { id, reason: `${id} refusal`, hint: `what to do about ${id}`, overridable };
}

function planWith(refusals: Refusal[], confirm: 'typed' | 'yn'): Plan {
  return {
    action: 'cleanup',
    title: 'Probe',
    subject: 'probe',
    // A wait with nothing to wait for: applying it changes nothing and succeeds at once.
    steps: [
      {
        id: 'probe',
        why: 'probe',
        wait: { what: 'nothing', timeoutMs: 1000 },
        effect: { kind: 'none' },
        preconditions: [],
      },
    ],
    refusals,
    warnings: [],
    blastRadius: structuredClone(EMPTY_BLAST),
    risk: confirm === 'typed' ? 'high' : 'low',
    confirm,
    ...(confirm === 'typed' ? { confirmToken: PLAIN } : {}),
    undo: [],
    before: [],
  };
}

function defFor(plan: Plan): ActionDef {
  return {
    id: 'cleanup',
    title: 'Probe',
    key: 'P',
    scopes: ['node'],
    destructive: true,
    summary: 'probe',
    usage: 'probe',
    cliOptions: [],
    examples: ['probe'],
    inputFromCli: () => ({}),
    plan: () => structuredClone(plan),
  };
}

/** How a surface ended: did it apply, and with force? */
interface Outcome {
  applied: boolean;
  forced?: boolean;
}

let host: SimHost;
let close: () => Promise<void>;
beforeAll(async () => {
  ({ host, close } = await openSimHost({ scenario: 'empty', clock: 'manual' }));
}, 60_000);
afterAll(async () => close?.());

const GLOBALS: GlobalOptions = {
  root: '/',
  kubeletRoot: '/var/lib/kubelet',
  exec: 'direct',
  json: false,
  write: true,
  dryRun: false,
  yes: false,
  stateDir: '/var/log/iscsi-console',
  refreshMs: 60_000,
  noColor: true,
  verbose: false,
};

/** The CLI action command, as main runs it: exit 0 is applied (the probe step always succeeds). */
async function cli(
  plan: Plan,
  o: { write: boolean; force: boolean; yes: boolean; tty: boolean; answer?: string },
): Promise<Outcome & { asked: string[] }> {
  const asked: string[] = [];
  const out: Output = {
    stdout: () => undefined,
    stderr: () => undefined,
    isTTY: o.tty,
    ...(o.tty
      ? {
          prompt: async (q: string) => {
            asked.push(q);
            return o.answer ?? '';
          },
        }
      : {}),
  };
  const ctx: CommandContext = {
    host,
    globals: { ...GLOBALS, write: o.write, yes: o.yes },
    out,
    signal: new AbortController().signal,
  };
  try {
    const code = await actionCommand(defFor(plan)).run(ctx, { positionals: [], options: { force: o.force } });
    return { applied: code === 0, asked };
  } catch (e) {
    if (e instanceof RefusedError) return { applied: false, asked };
    throw e;
  }
}

const plainKey = (over: Partial<Key> = {}): Key => ({ ...BARE_KEY, ...over });

/** The console's dispatcher: open the plan dialog, then the keys an admin would press. */
function consoleRun(plan: Plan, write: boolean, keys: readonly (string | 'enter')[]): Outcome {
  const applies: ApplyOptions[] = [];
  const def = defFor(plan);
  const backend: ConsoleBackend = {
    ...handFilledParts(),
    store: createStore<NodeState>(() => ({
      events: [],
      actions: [],
      health: { lastRefreshAt: 0, refreshCount: 0, errors: [], sources: [] },
      busy: 0,
    })),
    actions: [def],
    refreshNow: () => undefined,
    plan: () => structuredClone(plan),
    apply: (_p, options) => {
      applies.push(options);
      return new Promise(() => undefined);
    },
    readJournal: () => [],
  };
  const ui = createUiStore({ write, dryRun: false });
  const ctx: DispatchContext = {
    ui,
    backend,
    rows: [],
    columns: [],
    pageSize: 10,
    hostname: HOST,
    exit: () => undefined,
    running: {},
  };
  // What the console's frame does once it has drawn a dialog (app.tsx DialogPane): keys are
  // answers only to a question on the screen, so each is typed after the dialog was drawn.
  const drawn = () => {
    const d = ui.getState().dialog;
    const next = d && dialogFor(d).onShown?.(d as never);
    if (next) ui.setState({ dialog: next });
  };
  openPlan(ctx, def);
  for (const k of keys) {
    drawn();
    if (k === 'enter') dispatchKey(ctx, '', plainKey({ return: true }));
    else dispatchKey(ctx, k, plainKey());
  }
  return applies.length > 0 ? { applied: true, forced: applies[0]!.force === true } : { applied: false };
}

/**
 * What each case must do, written by hand from the rule (README, "The console" and "Commands"), not asked of the policy
 * under test: the plain token applies only a plan with no refusal in write mode; the override act
 * applies only a plan whose refusals are all overridable (and there is at least one) in write mode.
 */
interface Want {
  plainApplies: boolean;
  overrideApplies: boolean;
}
const NO_REFUSAL: Want = { plainApplies: true, overrideApplies: false };
const HELD: Want = { plainApplies: false, overrideApplies: false };
const OVERRIDABLE: Want = { plainApplies: false, overrideApplies: true };

describe('one consent policy: the same requirement through the CLI and the console', () => {
  it('the table names every refusal kind the planners emit', () => {
    const table = new Set(KINDS.map((k) => `${k.id}:${k.overridable}`));
    expect(refusalLiterals().filter((k) => !table.has(k))).toEqual([]);
    // The guard can fail: it does find the literals it checks.
    expect(refusalLiterals()).toEqual(expect.arrayContaining(['outage:true', 'in-use:false', 'held:false']));
  });

  const cases = KINDS.flatMap((k) =>
    (['typed', 'yn'] as const).map((confirm) => ({
      ...k,
      confirm,
      name: `${k.id} (${k.overridable ? 'overridable' : 'holds'}), ${confirm}`,
    })),
  );
  // Mixed plans: one held refusal keeps an overridable one from being overridden.
  const mixed = {
    id: 'outage+in-use',
    name: 'outage + in-use, typed',
    refusals: [refusal('outage', true), refusal('in-use', false)],
    confirm: 'typed' as const,
  };

  it.each([
    ...cases.map((c) => ({
      name: c.name,
      refusals: c.id === 'read-only' ? [{ ...READ_ONLY_REFUSAL }] : [refusal(c.id, c.overridable)],
      write: c.id !== 'read-only',
      confirm: c.confirm,
      want: c.id === 'read-only' ? HELD : c.overridable ? OVERRIDABLE : HELD,
    })),
    { name: mixed.name, refusals: mixed.refusals, write: true, confirm: mixed.confirm, want: HELD },
    { name: 'no refusal, typed', refusals: [], write: true, confirm: 'typed' as const, want: NO_REFUSAL },
    { name: 'no refusal, yn', refusals: [], write: true, confirm: 'yn' as const, want: NO_REFUSAL },
    // Read-only holds even a plan with nothing refused by a planner.
    { name: 'no refusal, read-only', refusals: [], write: false, confirm: 'typed' as const, want: HELD },
  ])('$name', async ({ refusals, write, confirm, want }) => {
    const plan = planWith(refusals, confirm);
    const plainAnswer = confirm === 'typed' ? PLAIN : 'y';
    const override = overrideToken(HOST);

    // Ordinary consent: the plain token (or y) with no override.
    const cliPlain = await cli(plan, { write, force: false, yes: false, tty: true, answer: plainAnswer });
    const conPlain = consoleRun(plan, write, confirm === 'typed' ? [PLAIN, 'enter'] : ['y']);
    expect(cliPlain.applied).toBe(want.plainApplies);
    expect(conPlain.applied).toBe(want.plainApplies);
    if (want.plainApplies) expect(conPlain.forced).toBe(false);

    // The plain token inside the override act never applies a refused plan.
    if (refusals.length > 0) {
      const cliWrong = await cli(plan, { write, force: true, yes: false, tty: true, answer: plainAnswer });
      const conWrong = consoleRun(plan, write, ['o', plainAnswer, 'enter']);
      expect(cliWrong.applied).toBe(false);
      expect(conWrong.applied).toBe(false);
    }

    // The override act with its own token: CLI --force on a terminal, console `o`.
    const cliOverride = await cli(plan, { write, force: true, yes: false, tty: true, answer: override });
    const conOverride = consoleRun(plan, write, ['o', override, 'enter']);
    expect(cliOverride.applied).toBe(want.overrideApplies);
    expect(conOverride.applied).toBe(want.overrideApplies);
    if (want.overrideApplies) {
      expect(conOverride.forced).toBe(true);
      expect(cliOverride.asked).toEqual([`Type "${override}" to override the refusals and apply: `]);
    }

    // Headless CLI: --yes stands for the typed answer; the override still needs --force.
    const overrideApplies = want.overrideApplies || want.plainApplies;
    expect((await cli(plan, { write, force: false, yes: true, tty: false })).applied).toBe(want.plainApplies);
    expect((await cli(plan, { write, force: true, yes: true, tty: false })).applied).toBe(overrideApplies);
    expect((await cli(plan, { write, force: true, yes: false, tty: false })).applied).toBe(false);
  });
});

describe('where the two surfaces disagreed, the engine rule and a test', () => {
  it('a plan with no steps is not applied by the CLI either (the console said "nothing to do")', async () => {
    const empty = { ...planWith([], 'yn'), steps: [] };
    const before = readJournal(host, GLOBALS.stateDir).length;
    const r = await cli(empty, { write: true, force: false, yes: true, tty: false });
    expect(r.applied).toBe(true); // exit 0: nothing to do is not a failure
    expect(readJournal(host, GLOBALS.stateDir)).toHaveLength(before);
    expect(consoleRun(empty, true, ['y', 'enter']).applied).toBe(false);
  });
});
