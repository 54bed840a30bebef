/**
 * Texts an operator reads in the console, at 80×24 and 160×45 on the `--demo incident` node: a
 * refusal names the pod by namespace/name with the exact kubectl command, the blast radius shows
 * fingerprints as "target @ portal (iface) LUN n", and no kubelet function name or exit-code list
 * reaches the screen. Expected texts come from the scenario (src/sim/scenarios/incident.ts: session
 * 1 is postgres-data at 10.0.0.10:3260, used by pod db/postgres-0; session 4 is old-logs, stale).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type DemoConsole, mountDemo } from './helpers/demo.js';
import { KEY } from './helpers/render-tui.js';
import { flatText, readScrolled } from './helpers/scrolled-dialog.js';

let t: DemoConsole | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

/** Opens the plan of `key` on the session with this sid and reads the whole dialog. */
async function readPlan(c: DemoConsole, sid: number, key: string, title: string) {
  await c.press('/');
  await c.type(`sid=${sid}`);
  await c.press(KEY.enter);
  await c.waitFor((f) => !f.includes(sid === 1 ? 'old-logs' : 'postgres-data'));
  await c.press(key);
  const first = await c.waitFor(`Plan: ${title}`);
  const { lines } = await readScrolled(first, async () => {
    await c.press(KEY.down);
    return c.lastFrame();
  });
  return { lines, text: lines.join('\n'), flat: flatText(lines) };
}

describe('console texts: pods by name, fingerprints in words', () => {
  for (const [columns, rows] of [
    [80, 24],
    [160, 45],
  ] as const) {
    it(`${columns}×${rows}: logging out session 1 is refused naming db/postgres-0 and the kubectl command`, async () => {
      t = await mountDemo({ scenario: 'incident', write: true, columns, rows });
      const { text, flat } = await readPlan(t, 1, 'l', 'Log out');
      expect(flat).toContain('[in-use] session 1 (10.0.0.10:3260) is in use by pod db/postgres-0');
      expect(flat).toContain('$ kubectl -n db delete pod postgres-0');
      expect(flat).toContain('pods (1): db/postgres-0');
      // The pod's UID is no name: it appears only inside the pod's mount path.
      expect(flat).not.toMatch(/pods? 83424ecb/);
      expect(text).not.toContain('isSessionBusy');
    });

    it(`${columns}×${rows}: the cleanup of session 4 shows target @ portal (iface) LUN n, no internals`, async () => {
      t = await mountDemo({ scenario: 'incident', write: true, columns, rows });
      const { text, flat } = await readPlan(t, 4, 'c', 'Clean up');
      expect(flat).toContain('sessions (1): 4 iqn.2026-01.lab.example:old-logs @ 10.0.0.10:3260 (default)');
      expect(flat).toContain(
        'devices (1): sdd (iqn.2026-01.lab.example:old-logs @ 10.0.0.10:3260 (default) LUN 1)',
      );
      // (readScrolled keeps a wrapped "(default)" once: the record's may be the sessions line's piece.)
      expect(flat).toContain('node records (1): iqn.2026-01.lab.example:old-logs @ 10.0.0.10:3260');
      expect(text).not.toContain('|10.0.0.10:3260|');
      expect(text).not.toContain('detachISCSIDisk');
      expect(flat).not.toContain('ok exit');
      expect(flat).toContain('delete the node record so iscsid does not log in again at boot');
    });
  }
});
