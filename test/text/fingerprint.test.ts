/** Fingerprints on screen: expected texts written by hand. */
import { describe, expect, it } from 'vitest';
import { fingerprintText } from '../../src/engine/text/fingerprint.js';

describe('fingerprint text', () => {
  it('reads a LUN key as target @ portal (iface) LUN n', () => {
    expect(fingerprintText('iqn.2026-01.lab.example:old-logs|10.0.0.10:3260|default|1')).toBe(
      'iqn.2026-01.lab.example:old-logs @ 10.0.0.10:3260 (default) LUN 1',
    );
  });
  it('reads a session or record key without the LUN, IPv6 portals too', () => {
    expect(fingerprintText('iqn.2026-01.lab.example:old-logs|10.0.0.10:3260|default')).toBe(
      'iqn.2026-01.lab.example:old-logs @ 10.0.0.10:3260 (default)',
    );
    expect(fingerprintText('iqn.x:t|[fd00::1]:3260|10.0.0.1:3260:pv-a')).toBe(
      'iqn.x:t @ [fd00::1]:3260 (10.0.0.1:3260:pv-a)',
    );
  });
  it('leaves paths, WWIDs and other subjects as they are', () => {
    expect(fingerprintText('/var/lib/kubelet/plugins/x')).toBe('/var/lib/kubelet/plugins/x');
    expect(fingerprintText('360000000000000000e00000000020001')).toBe('360000000000000000e00000000020001');
    expect(fingerprintText('a|b|c')).toBe('a|b|c');
  });
});
