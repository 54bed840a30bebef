/** The node's common IQN prefix: shown once, elided the same way everywhere, never partial. */
import { describe, expect, it } from 'vitest';
import { commonIqnPrefix, elideIqn, nodeIqnPrefix } from '../../src/ui/iqn-prefix.js';
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
});
