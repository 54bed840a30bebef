/**
 * The `/` filter does what help says: `a|b` inside field values, `!=`, `field=value`, an unknown
 * field is an error that lists the view's fields, and each view's field list is the fields its rows
 * carry (so `?` help and palette completion cannot advertise a field that never matches).
 */

import { describe, expect, it } from 'vitest';
import {
  compileFilter,
  completeFilterField,
  FILTER_FIELDS,
  filterError,
  filterFields,
  filterFieldsText,
} from '../../src/ui/filter.js';
import { deviceRows } from '../../src/ui/views/devices.js';
import { doctorRows } from '../../src/ui/views/doctor-rows.js';
import { eventRow } from '../../src/ui/views/events.js';
import { journalRow } from '../../src/ui/views/journal.js';
import { recordRows } from '../../src/ui/views/records.js';
import { sessionRows } from '../../src/ui/views/sessions.js';
import { targetRows } from '../../src/ui/views/targets.js';
import { volumeRows } from '../../src/ui/views/volumes.js';
import { simSnapshot } from '../helpers/sim-snapshot.js';
import { mountConsole } from './helpers/mount.js';
import { KEY } from './helpers/render-tui.js';

const row = (fields: Record<string, string>) => ({ fields });
const a = row({ sid: '1', health: 'failed', state: 'FAILED', target: 'iqn.x:db' });
const b = row({ sid: '10', health: 'degraded', state: 'LOGGED_IN', target: 'iqn.x:web' });
const c = row({ sid: '2', health: 'ok', state: 'LOGGED_IN', target: 'iqn.x:cache' });
const pick = (f: string) => [a, b, c].filter(compileFilter(f)).map((r) => r.fields.sid);

describe('filter language', () => {
  it('a|b inside a field value matches either', () => {
    expect(pick('health=degraded|failed')).toEqual(['1', '10']);
    expect(pick('health=DEGRADED|Failed')).toEqual(['1', '10']);
  });

  it('!= excludes one value or several', () => {
    expect(pick('health!=ok')).toEqual(['1', '10']);
    expect(pick('health!=ok|failed')).toEqual(['10']);
  });

  it('numbers compare whole: sid=1 is session 1, not 10', () => {
    expect(pick('sid=1')).toEqual(['1']);
    expect(pick('sid=1|2')).toEqual(['1', '2']);
    expect(pick('target=x:')).toEqual(['1', '10', '2']);
  });

  it('combines with words, alternatives and the leading ! inversion', () => {
    expect(pick('state=logged web|cache')).toEqual(['10', '2']);
    expect(pick('!health=ok')).toEqual(['1', '10']);
  });

  it('an unknown field is an error naming the view fields', () => {
    const fields = filterFields('sessions');
    expect(filterError('foo=bar', fields)).toBe(`unknown field foo; fields: ${fields.join(', ')}`);
    expect(filterError('foo=1 bar!=2 health=ok', fields)).toMatch(/^unknown fields foo, bar; fields: sid, /);
    expect(filterError('health=degraded|failed state!=FAILED db', fields)).toBeUndefined();
    expect(filterError('foo=bar', [])).toBeUndefined();
    expect(filterFieldsText('sessions')).toBe(`fields: ${fields.join(', ')}`);
    expect(filterFieldsText('doctor')).toBe('fields: check, status, id, evidence, fix, source');
  });

  it('completes the last word as a field name, keeping what was typed before it', () => {
    const fields = filterFields('sessions');
    expect(completeFilterField('hea', fields)).toEqual(['health=']);
    expect(completeFilterField('state=FAILED s', fields)).toEqual([
      'state=FAILED sid=',
      'state=FAILED state=',
    ]);
    expect(completeFilterField('!ver', fields)).toEqual(['!verdict=']);
    expect(completeFilterField('health=', fields)).toEqual([]);
    expect(completeFilterField('zz', fields)).toEqual([]);
  });
});

describe('each view lists exactly the fields its rows carry', () => {
  const incident = simSnapshot('incident');
  const csi = simSnapshot('csi');

  it('sessions, targets, volumes (in-tree and CSI), devices, records, events, journal', () => {
    const seen: Record<string, Set<string>> = {};
    const add = (view: string, rows: { fields: Record<string, string> }[]) => {
      seen[view] ??= new Set();
      for (const r of rows) for (const f of Object.keys(r.fields)) seen[view]!.add(f);
    };
    for (const s of [incident(), csi()]) {
      add('sessions', sessionRows(s.sessions));
      add('targets', targetRows(s));
      add('volumes', volumeRows(s));
      add('devices', deviceRows(s));
      // An iface record too: the simulated nodes have none.
      add('records', recordRows({ ...s, ifaces: [{ name: 'iface0', path: '/etc/iscsi/ifaces/iface0' }] }));
    }
    add('events', [
      eventRow({ id: 1, at: 0, kind: 'session', severity: 'info', subject: 's', message: 'm' } as never),
    ]);
    add('journal', [journalRow({ id: 'j', at: 0, action: 'cleanup', subject: 's', ok: true, commands: [] })]);
    add(
      'doctor',
      doctorRows({
        schemaVersion: 1,
        checks: [{ id: 'x', title: 'x', status: 'warn', evidence: 'e', hint: 'h' }],
        summary: { pass: 0, warn: 1, fail: 0, skip: 0, ok: true },
      }),
    );
    for (const [view, fields] of Object.entries(FILTER_FIELDS)) {
      expect([...(seen[view] ?? [])].sort(), view).toEqual([...fields].sort());
    }
  });
});

describe('the filter in the console (keys in, frames out)', () => {
  it('health=degraded|failed keeps those rows; an unknown field says so and lists the fields', async () => {
    let t = await mountConsole({ columns: 160, rows: 45, noColor: true });
    try {
      const snap = t.backend.store.getState().snapshot!;
      const wanted = snap.sessions.filter((s) => s.health === 'degraded' || s.health === 'failed');
      expect(wanted.length).toBeGreaterThan(0);
      await t.press('/');
      await t.type('health=degraded|failed');
      await t.press(KEY.enter);
      let f = await t.waitFor('filter: health=degraded|failed');
      expect(f).toContain(`1 of ${wanted.length} (${snap.sessions.length} total)`);
      t.unmount();
      t = await mountConsole({ columns: 160, rows: 45, noColor: true });
      await t.press('/');
      await t.type('foo=bar');
      await t.press(KEY.enter);
      f = await t.waitFor('unknown field foo');
      expect(f).toContain(
        `unknown field foo; fields: ${filterFields('sessions').join(', ')} (esc clears it)`,
      );
    } finally {
      t.unmount();
    }
  });
});
