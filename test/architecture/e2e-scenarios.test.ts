import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The real-kernel e2e suite cannot pass by accident (test/e2e/README.md): no scenario decides from the
 * build's own `--help` whether to run, a scenario skips only for a reason in the closed list that
 * CI provides, and every E2E_FAULT switch is declared (`# fault NAME: ERE`), so that CI's fault runs
 * (guest-run.sh) try each one. These are static facts of the scripts; the e2e run proves the rest.
 */
const E2E = join(__dirname, '..', 'e2e');
const scenarios = readdirSync(join(E2E, 'scenarios'))
  .filter((f) => f.endsWith('.sh'))
  .map((f) => ({ name: f, text: readFileSync(join(E2E, 'scenarios', f), 'utf8') }));
const lib = readdirSync(join(E2E, 'lib'))
  .filter((f) => /\.(sh|mjs)$/.test(f))
  .map((f) => ({ name: f, text: readFileSync(join(E2E, 'lib', f), 'utf8') }));
const common = readFileSync(join(E2E, 'lib', 'common.sh'), 'utf8');
const readme = readFileSync(join(E2E, 'README.md'), 'utf8');
/** Shell lines that run something: comments dropped. */
const code = (text: string) =>
  text
    .split('\n')
    .filter((l) => !/^\s*#/.test(l))
    .join('\n');

const declared = scenarios.flatMap((s) =>
  [...s.text.matchAll(/^# fault ([a-z0-9-]+): (.+)$/gm)].map((m) => ({
    scenario: s.name,
    fault: m[1]!,
    ere: m[2]!,
  })),
);

describe('e2e scenarios', () => {
  it('never ask the build what it offers', () => {
    const helpers = /\b(require_cmds|need|opt_of|has_opt|has_cmd|help_of|cli_commands)\b\s/;
    for (const f of [...scenarios, ...lib]) {
      expect(code(f.text), f.name).not.toMatch(helpers);
      // `--help` output piped into a decision (grep/awk/sed); showing it in the log is fine
      expect(code(f.text), f.name).not.toMatch(/--help[^\n]*\|\s*(grep|awk|sed)/);
    }
  });

  it('skip only for an allowed environment reason, each one listed in the README', () => {
    const table = /declare -A E2E_SKIP_REASONS=\(\n([\s\S]*?)\n\)/.exec(common)?.[1] ?? '';
    const allowed = [...table.matchAll(/\[([a-z0-9-]+)\]=/g)].map((m) => m[1]!);
    expect(allowed.length).toBeGreaterThan(0);
    for (const id of allowed) expect(readme, `README lists skip reason ${id}`).toContain(`| \`${id}\``);
    for (const s of scenarios) {
      const body = code(s.text);
      for (const m of body.matchAll(/\b(?:skip|require_env)\s+("?)([^\s"]+)\1/g)) {
        expect(allowed, `${s.name}: ${m[0]}`).toContain(m[2]);
      }
      expect(body, s.name).not.toMatch(/\bexit 77\b/);
    }
  });

  it('declare every fault switch they use, once, with a pattern, and the README names it', () => {
    const names = declared.map((d) => d.fault);
    expect(new Set(names).size).toBe(names.length);
    const used = new Set([
      ...scenarios.flatMap((s) => [...code(s.text).matchAll(/\bfault ([a-z0-9-]+)/g)].map((m) => m[1]!)),
      ...lib.flatMap((f) => [...f.text.matchAll(/E2E_FAULT === '([a-z0-9-]+)'/g)].map((m) => m[1]!)),
    ]);
    expect([...used].sort()).toEqual([...names].sort());
    for (const d of declared) {
      expect(() => new RegExp(d.ere), d.fault).not.toThrow();
      expect(readme, `README names E2E_FAULT=${d.fault}`).toContain(`E2E_FAULT=${d.fault}`);
    }
  });
});
