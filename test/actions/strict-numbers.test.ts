/**
 * LUNs and session ids are decimal digits only (the engine's one parser, src/engine/decimal.ts),
 * bounded as the kernel allows, and an action takes exactly its positionals: `0x10`, `1e3`, ` 1`
 * and extra arguments are exit 2 naming them, never a different object. Through the real CLI on
 * the simulated node.
 */
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { captureOutput } from '../helpers/capture-output.js';

async function run(argv: string[]): Promise<{ code: number; text: string }> {
  const o = captureOutput();
  const code = await main([...argv, '--demo', 'incident', '--dry-run'], o);
  return { code, text: o.out + o.err };
}

const ATTACH = [
  'attach',
  '--portal',
  '127.0.0.1:3260',
  '--iqn',
  'iqn.2026-01.lab.example:t1',
  '--volume-name',
  'v1',
];

describe('strict LUNs and sids', () => {
  it('a plain LUN and sid still plan', async () => {
    const r = await run(['scan', '4', '1']);
    expect(r.text).not.toMatch(/invalid/);
    expect(r.code).not.toBe(2);
  });

  it.each(['0x10', '1e3', ' 1', '1 ', '+1', '1.0', '16384', ''])('LUN %j is exit 2', async (lun) => {
    for (const argv of [
      ['scan', '4', lun],
      [...ATTACH, '--lun', lun],
    ]) {
      const r = await run(argv);
      expect(r.code).toBe(2);
      expect(r.text).toMatch(lun === '' ? /LUN|lun/ : /invalid LUN/);
    }
  });

  it.each(['0x4', ' 4', '4e0', '4294967296', 'session 4', '[4'])('sid %j is exit 2', async (sid) => {
    const r = await run(['scan', sid, '1']);
    expect(r.code).toBe(2);
    expect(r.text).toContain(`invalid session id ${JSON.stringify(sid)}`);
  });

  it.each([
    [['scan', '4', '1', '7'], /scan takes <sid> <lun>; extra argument: "7"/],
    [
      ['cleanup', '4', '5', '6'],
      /cleanup takes <sid\|kubelet-dir\|csi-volume-path>; extra arguments: "5" "6"/,
    ],
    [['unmount', '/mnt/a', '/mnt/b'], /unmount takes <mount-path>; extra argument: "\/mnt\/b"/],
    [['rescan', '4', 'x'], /rescan takes .*; extra argument: "x"/],
  ])('extra positionals %j are exit 2 naming them', async (argv, message) => {
    const r = await run(argv);
    expect(r.code).toBe(2);
    expect(r.text).toMatch(message);
  });
});
