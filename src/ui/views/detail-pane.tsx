/**
 * A view whose rows open a detail from the snapshot (k9s describe): ⏎ or `d` on a row shows the
 * row's lines in place of the table, ↑↓/PgUp/PgDn scroll them and esc goes back. The view declares
 * only how a row's detail reads (`lines`); this file gives it the view parts every such view shares
 * (open, scrolls, scrollLines, Body), so a detail behaves the same in every view.
 */
import type { SurfaceAction } from '../../app/domain.js';
import type { Snapshot } from '../../engine/model.js';
import { Text } from '../components/safe-text.js';
import { type Line, ScrollText } from '../components/scroll-text.js';
import type { TableRow } from '../components/table-types.js';
import { toneColor } from '../theme.js';
import { TableBody } from './table-body.js';
import type { ViewBodyProps, ViewModule } from './view.js';

/** A row's detail lines, by the row key; undefined: the object is gone (or the row has none). */
type DetailLines = (
  snapshot: Snapshot,
  key: string,
  now: number | undefined,
  /** The console's actions (hints name their keys); absent when only the line count matters. */
  actions?: readonly SurfaceAction[],
) => Line[] | undefined;

type DetailParts = Required<Pick<ViewModule, 'open' | 'scrolls' | 'scrollLines' | 'Body'>>;

interface DetailSpec {
  lines: DetailLines;
  /** Which rows open a detail (default: every row). */
  opens?: (row: TableRow) => boolean;
  /** The table's text with no rows. */
  empty?: string;
}

/** The view's body: its table, or the open detail's lines (no hooks: a plain render function). */
function detailBody(props: ViewBodyProps, viewId: string, o: DetailSpec) {
  const { detail, snapshot, theme } = props;
  if (detail === undefined || !snapshot) return <TableBody {...props} viewId={viewId} empty={o.empty} />;
  const lines = o.lines(snapshot, detail, props.now, props.backend.actions);
  if (!lines)
    return (
      <Text
        color={toneColor(theme, 'warn')}
      >{`${detail} is gone from the node. esc returns to the list.`}</Text>
    );
  return (
    <ScrollText lines={lines} height={props.height} width={props.width} offset={props.scroll} theme={theme} />
  );
}

function snapshotDetail(viewId: string, o: DetailSpec): DetailParts {
  return {
    open: (row) => ((o.opens?.(row) ?? true) ? { view: viewId, detail: row.key } : undefined),
    scrolls: (detail) => detail !== undefined,
    scrollLines: (snapshot, detail) =>
      detail === undefined || !snapshot ? undefined : (o.lines(snapshot, detail, undefined)?.length ?? 1),
    // biome-ignore lint/correctness/noComponentHookFactories: built once per view file at load, so the component is stable
    Body: (props) => detailBody(props, viewId, o),
  };
}

/**
 * Declares a view whose rows open a detail (defineView with the detail parts filled in from
 * `detail`, for the view's own id); a view may still give its own `open`.
 */
export function defineDetailView<const Id extends string>(
  view: Omit<ViewModule<Id>, keyof DetailParts> &
    Partial<Pick<ViewModule<Id>, 'open'>> & { detail: DetailSpec },
): ViewModule<Id> {
  const { detail, ...own } = view;
  return { ...snapshotDetail(view.id, detail), ...own };
}
