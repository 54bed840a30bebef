/**
 * The fields of the console's list views for the `/` filter; the language itself (parser, matcher,
 * errors, completion) is the engine's one (src/engine/text/filter.ts), shared with `status --filter`.
 * Each view's field names are `FILTER_FIELDS`, listed in `?` help and completed in the palette
 * (`completeFilterField`).
 */
import { SESSION_FILTER_FIELDS } from '../app/domain.js';

export {
  compileFilter,
  completeFilterField,
  type Filterable,
  filterError,
} from '../app/domain.js';

/**
 * The fields each list view's rows carry (src/ui/rows.ts, csi-rows.ts), in the order help lists
 * them. test/ui/filter.test.ts holds them to the rows.
 */
export const FILTER_FIELDS = {
  sessions: SESSION_FILTER_FIELDS,
  targets: ['target', 'kind', 'portal', 'sid', 'state', 'luns', 'paths', 'flags', 'problems'],
  volumes: [
    'path',
    'mode',
    'iqn',
    'portal',
    'lun',
    'mounted',
    'problems',
    'pods',
    'driver',
    'pv',
    'handle',
    'staging',
    'publish',
  ],
  devices: [
    'name',
    'kind',
    'hctl',
    'state',
    'wwid',
    'alias',
    'holders',
    'mounts',
    'sid',
    'pod',
    'pods',
    'problems',
  ],
  records: ['kind', 'target', 'portal', 'iface', 'startup', 'session', 'initiator'],
  events: ['kind', 'severity', 'subject', 'message'],
  journal: ['action', 'subject', 'result'],
  doctor: ['check', 'status', 'id', 'evidence', 'fix', 'source'],
} as const satisfies Record<string, readonly string[]>;

/** The field names of a view (empty for a view without a filterable list, e.g. doctor). */
export function filterFields(view: string): readonly string[] {
  return (FILTER_FIELDS as Record<string, readonly string[]>)[view] ?? [];
}

/** `fields: sid, target, …`: the line `?` help and errors show. */
export function filterFieldsText(view: string): string {
  const f = filterFields(view);
  return f.length ? `fields: ${f.join(', ')}` : 'no fields';
}
