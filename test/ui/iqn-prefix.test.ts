/** The node's common IQN prefix: shown once, elided the same way everywhere, never partial. */
import { describe, expect, it } from 'vitest';
import { commonIqnPrefix, elideIqn, nodeIqnPrefix, volumeDirLabel } from '../../src/ui/iqn-prefix.js';
import { simSnapshot } from '../helpers/sim-snapshot.js';

describe('common IQN prefix', () => {
  it('is the shared naming authority with its colon, or nothing', () => {
    expect(commonIqnPrefix(['iqn.2026-01.lab.example:a', 'iqn.2026-01.lab.example:b'])).toBe(
      'iqn.2026-01.lab.example:',
    );
    expect(commonIqnPrefix(['iqn.2026-01.lab.example:a', 'iqn.2003-01.org.linux-iscsi.x:b'])).toBe('');
    expect(commonIqnPrefix(['iqn.2026-01.lab.example:a', 'eui.02004567A425678D'])).toBe('');
    expect(commonIqnPrefix(['naa.600a0b80001111550000'])).toBe('');
    expect(commonIqnPrefix([])).toBe('');
    expect(commonIqnPrefix(['', 'iqn.2026-01.lab.example:a'])).toBe('iqn.2026-01.lab.example:');
  });

  it('elides the prefix to …: and leaves every other name whole', () => {
    const p = 'iqn.2026-01.lab.example:';
    expect(elideIqn('iqn.2026-01.lab.example:old-logs', p)).toBe('…:old-logs');
    expect(elideIqn('iqn.2003-01.org.x:y', p)).toBe('iqn.2003-01.org.x:y');
    expect(elideIqn('iqn.2026-01.lab.example:old-logs', '')).toBe('iqn.2026-01.lab.example:old-logs');
  });
});

describe('on the incident node', () => {
  const incident = simSnapshot('incident');
  it('every target shares iqn.2026-01.lab.example:', () => {
    const snap = incident();
    const p = nodeIqnPrefix(snap);
    expect(p).toBe('iqn.2026-01.lab.example:');
    const tails = snap.sessions.map((s) => elideIqn(s.targetIqn, p));
    expect(tails).toContain('…:old-logs');
    // Elision keeps rows apart: as many distinct tails as distinct IQNs.
    expect(new Set(tails).size).toBe(new Set(snap.sessions.map((s) => s.targetIqn)).size);
  });

  it('labels kubelet global dirs by their dir name, prefix elided, each distinct', () => {
    const snap = incident();
    const p = nodeIqnPrefix(snap);
    const labels = snap.kubelet.volumes.map((v) => volumeDirLabel(v.path, p));
    expect(labels).toContain('10.0.0.10:3260-…:kafka-data-lun-1');
    expect(new Set(labels).size).toBe(labels.length);
    for (const l of labels) expect(l.length).toBeLessThanOrEqual(40);
    expect(
      volumeDirLabel(
        '/var/lib/kubelet/plugins/kubernetes.io/iscsi/iface-eth1/10.0.0.1:3260-iqn.x:y-lun-0',
        '',
      ),
    ).toBe('eth1/10.0.0.1:3260-iqn.x:y-lun-0');
  });
});
