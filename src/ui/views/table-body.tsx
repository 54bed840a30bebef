/** The body every list view shows unless it declares its own: the windowed table of its rows. */
import { Table } from '../components/table.js';
import { filterError, filterFields } from '../filter.js';
import type { ViewBodyProps } from './view.js';

export function TableBody(props: ViewBodyProps & { viewId: string; empty?: string }) {
  return (
    <Table
      columns={props.columns}
      rows={props.rows}
      cursor={props.idx}
      marks={props.marks}
      width={props.width}
      height={props.height}
      theme={props.theme}
      sort={props.sort}
      strip
      emptyText={
        props.filter
          ? `${filterError(props.filter, filterFields(props.viewId)) ?? `nothing matches the filter "${props.filter}"`} (esc clears it)`
          : (props.empty ?? `no ${props.viewId}`)
      }
    />
  );
}
