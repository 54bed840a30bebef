/** CHAP fields into open-iscsi record text (usr/idbm.c's format), and reading them back masked. */
import { describe, expect, it } from 'vitest';
import {
  recordValueProblem,
  setRecordFields,
  unconfirmedFields,
} from '../../src/engine/iscsiadm/record-secrets.js';

const REC = `# BEGIN RECORD 2.1.8
node.name = iqn.2024-01.lab.example:t1
node.session.auth.authmethod = CHAP
node.session.auth.username = old
node.conn[0].address = 127.0.0.1
# END RECORD
`;

describe('record fields', () => {
  it('replaces an existing line, adds a missing one before # END RECORD, keeps every other line', () => {
    const out = setRecordFields(REC, {
      'node.session.auth.username': 'u1',
      'node.session.auth.password': 'p w',
    });
    expect(out).toBe(`# BEGIN RECORD 2.1.8
node.name = iqn.2024-01.lab.example:t1
node.session.auth.authmethod = CHAP
node.session.auth.username = u1
node.conn[0].address = 127.0.0.1
node.session.auth.password = p w
# END RECORD
`);
    // Idempotent: writing again changes nothing; duplicates of a name collapse to one line.
    expect(setRecordFields(out, { 'node.session.auth.password': 'p w' })).toBe(out);
    const dup = REC.replace('# END', 'node.session.auth.username = again\n# END');
    expect(setRecordFields(dup, { 'node.session.auth.username': 'x' }).match(/auth\.username/g)).toHaveLength(
      1,
    );
  });

  it('refuses text that is not a record', () => {
    expect(() => setRecordFields('garbage\n', { a: 'b' })).toThrow(/not an open-iscsi record/);
  });

  it('refuses values iscsiadm would read back differently', () => {
    expect(recordValueProblem('Sup3rS3cret')).toBeUndefined();
    expect(recordValueProblem('')).toMatch(/empty/);
    expect(recordValueProblem('a\nnode.startup = automatic')).toMatch(/line break/);
    expect(recordValueProblem(' padded')).toMatch(/blanks/);
    expect(recordValueProblem('x'.repeat(256))).toMatch(/255 bytes/);
  });

  it('confirms what -o show prints: passwords masked, usernames as written', () => {
    const show = `# BEGIN RECORD 2.1.8\nnode.session.auth.username = u1\nnode.session.auth.password = ********\n# END RECORD\n`;
    expect(
      unconfirmedFields(show, { 'node.session.auth.username': 'u1', 'node.session.auth.password': 's' }),
    ).toEqual([]);
    expect(
      unconfirmedFields(show.replace('********', '<empty>'), { 'node.session.auth.password': 's' }),
    ).toEqual(['node.session.auth.password']);
    expect(unconfirmedFields(show, { 'node.session.auth.username': 'other' })).toEqual([
      'node.session.auth.username',
    ]);
  });
});
