import { expect, test } from 'vitest';
import { openSimHost } from '../../src/sim/index.js';

test('smoke', async () => {
  for (const scenario of ['healthy', 'incident', 'outage', 'empty']) {
    const { host, close } = await openSimHost({ scenario, clock: 'manual' });
    const r = await host.run(['iscsiadm', '-m', 'session', '-P', '3']);
    console.log(scenario, r.exitCode, r.stdout.slice(0, 3000), r.stderr);
    console.log(host.readText('/proc/1/mountinfo'));
    const ll = await host.run(['multipath', '-ll'], { timeoutMs: 10 });
    console.log(ll);
    await close();
  }
  expect(1).toBe(1);
});
