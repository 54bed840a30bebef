/**
 * The CLI's words: `help [command]`, every option a command accepts in its --help (walked from the
 * parser's own declarations), plans wrapped to the terminal, dry-run exit codes, progress by
 * command, and watch starting from the problems already present. On `--demo incident`: session 4
 * (old-logs) is stale and cleans up; session 7 (metrics-tsdb) is in use by a pod and refused.
 */
import { describe, expect, it } from 'vitest';
import type { Output } from '../../src/cli/command.js';
import { COMMAND_ENTRIES } from '../../src/cli/commands/index.js';
import { formatCommandHelp, formatHelp } from '../../src/cli/help.js';
import { main, optionSpecs } from '../../src/cli/main.js';
import { captureOutput } from '../helpers/capture-output.js';

async function run(argv: string[], o: Output & { out: string; err: string } = captureOutput()) {
  const code = await main(argv, o);
  return { code, out: o.out, err: o.err };
}

describe('help', () => {
  it('help and help <command> print what --help prints; an unknown command is exit 2 with the closest', async () => {
    const commands = await Promise.all(COMMAND_ENTRIES.map((e) => e.load()));
    expect((await run(['help'])).out).toBe(formatHelp(commands));
    const status = commands.find((c) => c.name === 'status')!;
    expect((await run(['help', 'status'])).out).toBe(formatCommandHelp(status));
    expect((await run(['status', '--help'])).out).toBe(formatCommandHelp(status));
    const typo = await run(['help', 'stauts']);
    expect(typo.code).toBe(2);
    expect(typo.err).toContain('did you mean status?');
    expect(formatHelp(commands)).toMatch(/\n {2}help {13}/);
  });

  it("every command's --help lists every option its parser accepts (its own and the global ones)", async () => {
    for (const entry of COMMAND_ENTRIES) {
      const c = await entry.load();
      const help = formatCommandHelp(c);
      for (const spec of optionSpecs([c])) {
        expect(help, `${c.name} --help lists --${spec.name}`).toMatch(new RegExp(`--${spec.name}\\b`));
        if (spec.short)
          expect(help, `${c.name} --help lists -${spec.short}`).toContain(`-${spec.short}, --${spec.name}`);
      }
    }
    expect(formatCommandHelp(await COMMAND_ENTRIES.find((e) => e.name === 'cleanup')!.load())).toContain(
      '--remove-driver-files',
    );
  });
});

describe('plans in the CLI', () => {
  it('wrap to the terminal width: stdout columns, else $COLUMNS, else 80; commands end broken lines in " \\"', async () => {
    const narrow = captureOutput();
    narrow.columns = 60;
    const r = await run(['cleanup', '4', '--demo', 'incident', '--dry-run'], narrow);
    expect(r.code).toBe(0);
    const lines = r.out.trimEnd().split('\n');
    for (const l of lines) expect([...l].length, l).toBeLessThanOrEqual(60);
    // The logout command is longer than 60: broken between words, pasteable as one command.
    const at = lines.findIndex(
      (l) => l.includes('$ iscsiadm -m node -p 10.0.0.10:3260') && l.includes('--logout') === false,
    );
    expect(lines[at]).toMatch(/ \\$/);
    const joined = r.out.replace(/ \\\n\s+/g, ' ');
    expect(joined).toContain(
      '$ iscsiadm -m node -p 10.0.0.10:3260 -T iqn.2026-01.lab.example:old-logs --logout -I default',
    );
    const env = process.env.COLUMNS;
    process.env.COLUMNS = '200';
    try {
      const wide = await run(['cleanup', '4', '--demo', 'incident', '--dry-run']);
      expect(wide.out).toContain(
        '$ iscsiadm -m node -p 10.0.0.10:3260 -T iqn.2026-01.lab.example:old-logs --logout -I default\n',
      );
    } finally {
      if (env === undefined) delete process.env.COLUMNS;
      else process.env.COLUMNS = env;
    }
  }, 60_000);

  it('a dry run: 0 when only read-only stops it (and it says so, not as a refusal), 3 when refused', async () => {
    const ok = await run(['cleanup', '4', '--demo', 'incident', '--dry-run']);
    expect(ok.code).toBe(0);
    expect(ok.out).not.toContain('[read-only]');
    expect(ok.out).toContain('DRY RUN: nothing ran; add --write (without --dry-run) to apply it');
    const refused = await run(['cleanup', '7', '--demo', 'incident', '--dry-run']);
    expect(refused.code).toBe(3);
    expect(refused.out.replace(/\s+/g, ' ')).toMatch(
      /DRY RUN: nothing ran; refused \(in-use, .*\): it would not run with --write either/,
    );
    expect((await run(['cleanup', '7', '--demo', 'incident', '--dry-run', '--write'])).code).toBe(3);
  }, 60_000);

  it('--yes progress names the command each step runs, never a step id', async () => {
    const r = await run(['cleanup', '4', '--demo', 'incident', '--write', '--yes']);
    expect(r.code, r.err).toBe(0);
    expect(r.err).toContain('▸  1. $ blockdev --flushbufs /dev/sdd\n✓     done');
    expect(r.err).toContain('▸  2. $ echo 1 > /sys/block/sdd/device/delete');
    expect(`${r.out}${r.err}`).not.toMatch(/flushbufs:sdd|delete:sdd/);
    expect(r.out).toContain('  done     1. $ blockdev --flushbufs /dev/sdd\n');
  }, 60_000);
});

describe('watch', () => {
  it('starts with what is already wrong, as events, before any change', async () => {
    const o = captureOutput();
    const stop = new AbortController();
    const done = main(['watch', '--demo', 'incident'], o, stop.signal);
    const deadline = Date.now() + 60_000;
    while (!o.out.includes('session 5 orphaned') && Date.now() < deadline)
      await new Promise((r) => setImmediate(r));
    stop.abort();
    expect(await done).toBe(0);
    const lines = o.out.trimEnd().split('\n');
    expect(lines[0]).toMatch(/ info {2}watcher {3}watching sim-node-1: 7 sessions/);
    // The incident has one multipath map (src/sim/scenarios/incident.ts): counted in the singular.
    expect(lines[0]).toContain(', 1 multipath map, ');
    // The outage first, then the sessions worst first (failed, degraded, then stale and orphaned).
    expect(lines[1]).toMatch(/ warn {2}portal {4}portal 10\.0\.0\.12:3260 down: 1 session FAILED/);
    const order = lines
      .slice(2, 7)
      .map((l) => /session (\d+) (\w+) at start:/.exec(l)?.slice(1, 3).join(' '));
    expect(order).toEqual(['7 failed', '3 failed', '2 degraded', '4 stale', '5 orphaned']);
    expect(o.err).toBe('');
  }, 90_000);
});
