/** The generated action subcommands through main(), on the simulated node. */
import { describe, expect, it } from 'vitest';
import type { Output } from '../../src/cli/command.js';
import { main } from '../../src/cli/main.js';

function capture(
  isTTY = false,
  answers: string[] = [],
): { out: Output; stdout: () => string; stderr: () => string; asked: string[] } {
  let so = '';
  let se = '';
  const asked: string[] = [];
  const out: Output = {
    stdout: (t) => {
      so += t;
    },
    stderr: (t) => {
      se += t;
    },
    isTTY,
    // A terminal wide enough that no plan line wraps (wrapping: test/cli/plan-width.test.ts).
    columns: 1000,
    ...(isTTY
      ? {
          prompt: async (q: string) => {
            asked.push(q);
            return answers.shift() ?? '';
          },
        }
      : {}),
  };
  return { out, stdout: () => so, stderr: () => se, asked };
}

const GP =
  '/var/lib/kubelet/plugins/kubernetes.io/iscsi/iface-default/10.0.0.10:3260-iqn.2026-01.lab.example:postgres-data-lun-1';

describe('action subcommands', () => {
  it('without --write: exit 3 with a hint; --dry-run prints the plan and exits 0', async () => {
    const c = capture();
    expect(await main(['cleanup', '4', '--demo', 'incident'], c.out)).toBe(3);
    expect(c.stderr()).toMatch(/hint: add --write/);
    const d = capture();
    expect(await main(['cleanup', '4', '--demo', 'incident', '--dry-run'], d.out)).toBe(0);
    expect(d.stdout()).toContain(
      'iscsiadm -m node -p 10.0.0.10:3260 -T iqn.2026-01.lab.example:old-logs --logout -I default',
    );
    expect(d.stdout()).toContain('echo 1 > /sys/block/sdd/device/delete');
    expect(d.stdout()).toMatch(/risk high · confirm typed \(type "4"\)/);
  });

  it('--dry-run --json gives the plan as JSON; a refused dry run exits 3', async () => {
    const c = capture();
    expect(await main(['logout', '1', '--demo', 'incident', '--dry-run', '--json', '--write'], c.out)).toBe(
      3,
    );
    const j = JSON.parse(c.stdout()) as { plan: { refusals: { id: string }[] }; blocked: string[] };
    expect(j.blocked).toContain('in-use');
    expect(j.plan.refusals.map((r) => r.id)).toContain('in-use');
  });

  it('--write without --yes and without a terminal is refused; with --yes it applies', async () => {
    const c = capture();
    expect(await main(['cleanup', '4', '--demo', 'incident', '--write'], c.out)).toBe(3);
    expect(c.stderr()).toMatch(/--yes/);
    const y = capture();
    expect(await main(['cleanup', '4', '--demo', 'incident', '--write', '--yes'], y.out)).toBe(0);
    expect(y.stdout()).toMatch(/done, verified/);
    expect(y.stdout()).toMatch(/journal id [0-9a-f-]{36}/);
    const j = capture();
    expect(await main(['cleanup', '4', '--demo', 'incident', '--write', '--yes', '--json'], j.out)).toBe(0);
    expect((JSON.parse(j.stdout()) as { result: { ok: boolean; verified: boolean } }).result).toMatchObject({
      ok: true,
      verified: true,
    });
  });

  it('on a terminal: typed confirmation for destructive plans; a wrong token changes nothing', async () => {
    const wrong = capture(true, ['5']);
    expect(await main(['cleanup', '4', '--demo', 'incident', '--write'], wrong.out)).toBe(3);
    expect(wrong.asked[0]).toMatch(/Type "4"/);
    const right = capture(true, ['4']);
    expect(await main(['cleanup', '4', '--demo', 'incident', '--write'], right.out)).toBe(0);
    const yn = capture(true, ['y']);
    expect(await main(['rescan', '1', '--demo', 'incident', '--write'], yn.out)).toBe(0);
    expect(yn.asked[0]).toMatch(/\[y\/N\]/);
  });

  it('--force overrides overridable refusals (and still asks for the typed token on a terminal)', async () => {
    const c = capture();
    expect(await main(['unmount', GP, '--demo', 'incident', '--write', '--yes'], c.out)).toBe(3);
    expect(c.stderr()).toMatch(/pod db\/postgres-0 still bind-mounts/);
    expect(c.stderr()).toMatch(/hint: add --force to override pod-mounts/);
    const f = capture();
    expect(await main(['unmount', GP, '--demo', 'incident', '--write', '--yes', '--force'], f.out)).toBe(0);
    // The override act has its own token (consent.ts), never the plain one: unmount's plain token
    // is the hostname, which --force used to accept. The engine's rule won; typing it applies nothing.
    const plain = capture(true, ['sim-node-1']);
    expect(await main(['unmount', GP, '--demo', 'incident', '--write', '--force'], plain.out)).toBe(3);
    expect(plain.stderr()).toMatch(/typed override did not match/);
    const t = capture(true, ['override sim-node-1']);
    expect(await main(['unmount', GP, '--demo', 'incident', '--write', '--force'], t.out)).toBe(0);
    expect(t.asked[0]).toMatch(/Type "override sim-node-1" to override the refusals/);
    // The refusals being overridden are named before the question.
    expect(t.stderr()).toMatch(
      /OVERRIDE 1 refusal[\s\S]*\[pod-mounts, can be overridden\] pod db\/postgres-0 still bind-mounts/,
    );
  });

  it('a refused plan on a terminal without --force asks nothing and applies nothing', async () => {
    const t = capture(true, ['sim-node-1', 'override sim-node-1']);
    expect(await main(['unmount', GP, '--demo', 'incident', '--write'], t.out)).toBe(3);
    expect(t.asked).toEqual([]);
    expect(t.stderr()).toMatch(/add --force/);
  });

  it('bad arguments are usage errors (exit 2); help is generated from the registry', async () => {
    expect(await main(['delete-device', 'sdz', '--demo', 'incident'], capture().out)).toBe(2);
    expect(await main(['attach', '--demo', 'empty'], capture().out)).toBe(2);
    expect(await main(['scan', '1', 'x', '--demo', 'incident'], capture().out)).toBe(2);
    const h = capture();
    expect(await main(['attach', '--help'], h.out)).toBe(0);
    expect(h.stdout()).toContain('--manifest FILE');
    expect(h.stdout()).toContain('--force');
    expect(h.stdout()).toMatch(/3 refused/);
  });

  it('a failing command exits 4 with the iscsiadm code name and hint', async () => {
    const c = capture();
    const code = await main(
      [
        'attach',
        '--demo',
        'empty',
        '--portal',
        '127.0.0.1:3260',
        '--iqn',
        'iqn.2026-01.lab.example:nope',
        '--lun',
        '1',
        '--volume-name',
        'pvx',
        '--write',
        '--yes',
      ],
      c.out,
    );
    expect(code).toBe(4);
    expect(c.stderr()).toMatch(/ISCSI_ERR_/);
    expect(c.stderr()).toMatch(/hint: /);
  });
});
