/**
 * Reads a scrolling dialog the way an admin does: every body line seen on the way down, once each
 * (the "… N more lines" marker aside), and its commands with their shell continuations joined.
 */

/** The dialog's body lines on a screen (between the border's `│ ` and ` │`). */
export function dialogBody(screen: string): string[] {
  return screen
    .split('\n')
    .map((l) => /^│ (.*?)\s*│$/.exec(l)?.[1])
    .filter((l): l is string => l !== undefined);
}

/**
 * Scrolls with `down` until the dialog shows no "more lines", keeping each body line once; returns
 * the lines and the last screen.
 */
export async function readScrolled(
  first: string,
  down: () => Promise<string>,
  maxSteps = 60,
): Promise<{ lines: string[]; last: string }> {
  const lines: string[] = [];
  const take = (screen: string) => {
    for (const l of dialogBody(screen)) if (!/^… \d+ more lines/.test(l) && !lines.includes(l)) lines.push(l);
  };
  let screen = first;
  take(screen);
  for (let i = 0; i < maxSteps && screen.includes('more lines'); i++) {
    screen = await down();
    take(screen);
  }
  return { lines, last: screen };
}

/** The lines as one text with wrapped commands rejoined (indents and ` \` removed). */
export function flatText(lines: readonly string[]): string {
  return lines.map((l) => l.trim().replace(/ \\$/, '')).join(' ');
}
