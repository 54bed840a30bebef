import { describe, expect, it } from 'vitest';
import { under } from '../../src/engine/host/path.js';

describe('under', () => {
  it('joins host paths below the root and leaves them alone on the real node', () => {
    expect(under('/host', '/sys/block')).toBe('/host/sys/block');
    expect(under('/host/', '/sys/block')).toBe('/host/sys/block');
    expect(under('/', '/sys/block')).toBe('/sys/block');
    expect(under('/host', '/')).toBe('/host');
  });

  it('never climbs out of the root', () => {
    expect(under('/host', '/../etc/shadow')).toBe('/host/etc/shadow');
    expect(under('/host', '/var/lib/kubelet/../../../etc')).toBe('/host/etc');
    expect(under('/host', 'relative/x')).toBe('/host/relative/x');
  });

  it('normalises doubled slashes and dot segments but keeps dot-files', () => {
    expect(under('/r', '/a//b/./c')).toBe('/r/a/b/c');
    expect(under('/r', '/etc/.hidden')).toBe('/r/etc/.hidden');
  });
});
