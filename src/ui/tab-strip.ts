/**
 * The view tabs laid out for a width: full names when they fit; else the other views shorten to
 * their number and first letters (`2 tar`), then to the number alone, so the active view's name
 * and the "n of m" counter after the tabs are never cut at 80 columns. The active tab
 * is always whole and marked without colour too (theme.ts tabLabel).
 */
import { type Theme, tabLabel } from './theme.js';

interface Tab {
  id: string;
  label: string;
  active: boolean;
}

/** Tabs for `views` (in number-key order) that fit in `width` cells when any layout does. */
export function tabStrip(
  views: readonly { id: string; key: number }[],
  active: string,
  theme: Theme,
  width: number,
): Tab[] {
  const layouts = [(id: string) => id, (id: string) => id.slice(0, 3), (_id: string) => ''];
  let tabs: Tab[] = [];
  for (const name of layouts) {
    tabs = views.map((v) => {
      const on = v.id === active;
      const label = tabLabel(v.key - 1, on ? v.id : name(v.id), on, theme);
      return { id: v.id, active: on, label: on || name(v.id) ? label : label.replace(/ {2}$/, ' ') };
    });
    if (tabs.reduce((n, t) => n + t.label.length, 0) <= width) return tabs;
  }
  return tabs;
}
