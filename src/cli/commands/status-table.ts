/** The `status` text's table layout and colours (shared by its sections). */
export const ANSI = {
  red: '\x1b[31m',
  yellow: '\x1b[33m',
  green: '\x1b[32m',
  cyan: '\x1b[36m',
  bold: '\x1b[1m',
  reset: '\x1b[0m',
};
export type Paint = (text: string, color: keyof typeof ANSI) => string;

/** Aligns rows into columns (two spaces apart); `paint` runs after padding so escapes never skew widths. */
export function table(
  header: string[],
  rows: string[][],
  colorOf?: (row: number, col: number) => keyof typeof ANSI | undefined,
  paint?: Paint,
): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[], row: number) =>
    cells
      .map((c, i) => {
        const padded = i === cells.length - 1 ? c : c.padEnd(widths[i]!);
        const color = row >= 0 ? colorOf?.(row, i) : undefined;
        return color && paint ? paint(padded, color) : padded;
      })
      .join('  ')
      .trimEnd();
  return [line(header, -1), ...rows.map((r, i) => line(r, i))];
}
