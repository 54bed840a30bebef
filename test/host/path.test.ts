import { posix } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveLink, under } from '../../src/engine/host/path.js';

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

describe('resolveLink', () => {
  it('resolves a link target lexically, exactly as posix.normalize of the joined path', () => {
    const links = [
      '/sys/bus/scsi/devices/1:0:0:1',
      '/sys/class/iscsi_session/session3',
      '/a',
      '/',
      'rel/link',
    ];
    const targets = [
      '../../../devices/platform/host1/session1/target1:0:0/1:0:0:1',
      '../../devices/platform/host3/session3/iscsi_session/session3',
      '/abs/./x/../y',
      '/abs/dir/',
      '../../../../../../..',
      '../x/../',
      './.',
      '',
      'a//b/./c/',
      '..',
    ];
    for (const link of links)
      for (const target of targets) {
        const want = target.startsWith('/')
          ? posix.normalize(target)
          : posix.normalize(posix.join(posix.dirname(link), target));
        expect(resolveLink(link, target), `${link} -> ${target}`).toBe(want);
      }
  });
});
