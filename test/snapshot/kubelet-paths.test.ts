import { describe, expect, it } from 'vitest';
import {
  extractDeviceAndPrefix,
  extractIface,
  extractPortalAndIqnKubelet,
  getVolCount,
  globalDirName,
  isSessionBusy,
  kubeletIfaceName,
  makePDName,
  makeVDPDName,
  parseGlobalDirName,
  parseGlobalPath,
} from '../../src/engine/kubelet/paths.js';

const IQN = 'iqn.2003-01.io.k8s:e2e.volume-1';

describe('kubelet path naming (iscsi_util.go makePDNameInternal / makeVDPDNameInternal)', () => {
  it('builds the FS global dir and block map path like kubelet', () => {
    expect(
      makePDName('/var/lib/kubelet', 'default', '178.104.163.35:3260', 'iqn.2020-09.com.test:lv1', 0),
    ).toBe(
      '/var/lib/kubelet/plugins/kubernetes.io/iscsi/iface-default/178.104.163.35:3260-iqn.2020-09.com.test:lv1-lun-0',
    );
    expect(makePDName('/var/lib/kubelet/', '127.0.0.1:3260:pv1', '127.0.0.1:3260', IQN, '3')).toBe(
      `/var/lib/kubelet/plugins/kubernetes.io/iscsi/iface-127.0.0.1:3260:pv1/127.0.0.1:3260-${IQN}-lun-3`,
    );
    expect(
      makeVDPDName('/var/lib/kubelet', 'default', '178.104.163.35:3260', 'iqn.2020-09.com.test:lv1', 0),
    ).toBe(
      '/var/lib/kubelet/plugins/kubernetes.io/iscsi/volumeDevices/iface-default/178.104.163.35:3260-iqn.2020-09.com.test:lv1-lun-0',
    );
  });

  it('clones the iface as <portal>:<volName> when an initiatorName is set (PR #79977)', () => {
    expect(kubeletIfaceName('default', '10.0.0.1', 'pv0001', 'iqn.2024-01.x:init')).toBe(
      '10.0.0.1:3260:pv0001',
    );
    expect(kubeletIfaceName('default', '10.0.0.1:3260', 'pv0001')).toBe('default');
  });
});

describe('dir-name parsing', () => {
  it('mirrors kubelet exactly, including where it goes wrong', () => {
    const dev = `127.0.0.1:3260-${IQN}-lun-3`;
    expect(extractDeviceAndPrefix(`/x/iface-default/${dev}`)).toEqual({
      device: dev,
      prefix: `127.0.0.1:3260-${IQN}`,
    });
    expect(extractPortalAndIqnKubelet(dev)).toEqual({ portal: '127.0.0.1:3260', iqn: IQN });
    expect(extractIface(`/var/lib/kubelet/plugins/kubernetes.io/iscsi/iface-127.0.0.1:3260:pv1/${dev}`)).toBe(
      '127.0.0.1:3260:pv1',
    );
    expect(extractIface('/no/iface/here')).toBeUndefined();
    // A hostname with '-' breaks kubelet's first-dash split (docs/kubelet-iscsi.md#latent-behaviours item 6).
    expect(extractPortalAndIqnKubelet(`san-a.example.com:3260-${IQN}-lun-0`)?.portal).toBe('san');
    expect(extractPortalAndIqnKubelet('nodash')).toBeUndefined();
  });

  it('parses IPv6 and hyphenated hostnames correctly', () => {
    expect(parseGlobalDirName(`[fd00::1]:3260-${IQN}-lun-0`)).toEqual({
      portal: '[fd00::1]:3260',
      iqn: IQN,
      lun: '0',
    });
    expect(parseGlobalDirName(`[fd00::1]-${IQN}-lun-7`)).toEqual({ portal: '[fd00::1]', iqn: IQN, lun: '7' });
    expect(parseGlobalDirName(`san-a.example-corp.com:3260-${IQN}-lun-12`)).toEqual({
      portal: 'san-a.example-corp.com:3260',
      iqn: IQN,
      lun: '12',
    });
    expect(parseGlobalDirName(`10.0.0.1:3260-iqn.2024-01.a-b.c:tgt-lun-x-lun-1`)).toEqual({
      portal: '10.0.0.1:3260',
      iqn: 'iqn.2024-01.a-b.c:tgt-lun-x',
      lun: '1',
    });
    expect(parseGlobalDirName('10.0.0.1:3260-eui.0123456789abcdef-lun-2')).toEqual({
      portal: '10.0.0.1:3260',
      iqn: 'eui.0123456789abcdef',
      lun: '2',
    });
    expect(parseGlobalDirName('garbage')).toBeUndefined();
    expect(parseGlobalDirName(`not a portal-${IQN}-lun-1`)).toBeUndefined();
    expect(parseGlobalDirName(`10.0.0.1:3260-${IQN}-lun-abc`)).toBeUndefined();
  });

  it('parses any path in the plugin tree, including a block pod device node', () => {
    const g = makeVDPDName('/var/lib/kubelet', 'default', '[fd00::1]:3260', IQN, 4);
    expect(parseGlobalPath('/var/lib/kubelet', `${g}/uid-1`)).toEqual({
      portal: '[fd00::1]:3260',
      iqn: IQN,
      lun: '4',
      mode: 'block',
      iface: 'default',
      globalPath: g,
      podUid: 'uid-1',
    });
    expect(parseGlobalPath('/var/lib/kubelet', '/var/lib/kubelet/pods/x')).toBeUndefined();
  });
});

describe('getVolCount / isSessionBusy (PR #80091)', () => {
  const fs = new Map<string, string[]>([
    [
      'iface-default',
      [`10.0.0.1:3260-${IQN}-lun-0`, `10.0.0.1:3260-${IQN}-lun-1`, `10.0.0.1:3260-${IQN}0-lun-0`],
    ],
    ['iface-other', [`10.0.0.2:3260-${IQN}-lun-0`]],
    ['volumeDevices', [`10.0.0.1:3260-${IQN}-lun-9`]],
  ]);
  const block = new Map<string, string[]>([['iface-default', [`10.0.0.1:3260-${IQN}-lun-5`]]]);
  it('counts every LUN and prefix-matching IQN, skipping volumeDevices', () => {
    expect(getVolCount(fs, '10.0.0.1:3260', IQN)).toBe(3);
    expect(getVolCount(block, '10.0.0.1:3260', IQN)).toBe(1);
    expect(getVolCount(fs, '10.0.0.3:3260', IQN)).toBe(0);
  });
  it('is busy when the two trees together count more than one dir', () => {
    expect(isSessionBusy(fs, block, '10.0.0.1:3260', IQN)).toBe(true);
    expect(isSessionBusy(new Map(), block, '10.0.0.1:3260', IQN)).toBe(false);
    expect(isSessionBusy(fs, new Map(), '10.0.0.2:3260', IQN)).toBe(false);
  });
  it('names dirs the way getVolCount matches them', () => {
    expect(globalDirName('10.0.0.1:3260', IQN, 0).startsWith(`10.0.0.1:3260-${IQN}`)).toBe(true);
  });
});
