/**
 * Wraps a line of text to a width without losing a character: what the admin consents to (a plan's
 * commands, refusal reasons, undo lines) is read in full at any width down to 80 columns.
 *
 * - Continuation lines are indented below the line's own indentation, so they read as one item.
 * - A command (`$ iscsiadm …`) breaks only between its words (a quoted word is one word, spaces
 *   and all), and each broken line ends in ` \`, the shell's own continuation: the lines still
 *   paste into a shell as the exact command.
 * - A single word longer than a whole line is cut where it must be, and the cut is marked with `↩`
 *   at the end of the piece, never silently.
 *
 * Widths are counted in code points: the console's texts use single-cell symbols only (✗ · ≤ …).
 */

interface WrapOptions {
  /** The line is a shell command: break between its words only, and mark breaks with ` \`. */
  command?: boolean;
}

/** The mark at the end of a piece of a word that had to be cut. */
export const CUT_MARK = '↩';
/** The shell's line continuation, at the end of a broken command line. */
const SHELL_CONTINUATION = ' \\';

const cells = (s: string): number => {
  let n = 0;
  for (const _ of s) n++;
  return n;
};

interface Word {
  /** Spaces before the word on the original line (kept when it stays on the same line). */
  sep: string;
  text: string;
}

/** Splits at runs of spaces; in a command, not inside single quotes (shellQuote's quoting, `'\''` included). */
function splitWords(body: string, command: boolean): Word[] {
  const words: Word[] = [];
  let sep = '';
  let cur = '';
  let quoted = false;
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (command && c === "'") quoted = !quoted;
    else if (command && !quoted && c === '\\' && i + 1 < body.length) {
      cur += c + body[i + 1];
      i++;
      continue;
    }
    if (c === ' ' && !quoted) {
      if (cur) {
        words.push({ sep, text: cur });
        cur = '';
        sep = '';
      }
      sep += c;
      continue;
    }
    cur += c;
  }
  if (cur) words.push({ sep, text: cur });
  return words;
}

/** A list item's lead: indentation, a status symbol, a step number (`  ✓  3. `). */
const ITEM_LEAD = /^\s*(?:[·▸✓↷✗] +)?(?:\d+\. +)?/;

/**
 * The indentation of continuation lines: under a command's first word + 2, else under the text of
 * the list item + 2 (so a step's pieces never reach back under its number).
 */
function continuationIndent(text: string, command: boolean, width: number): number {
  const dollar = command ? text.indexOf('$ ') : -1;
  const want = dollar >= 0 ? dollar + 4 : (ITEM_LEAD.exec(text)?.[0].length ?? 0) + 2;
  // Keep at least half the width for the text itself.
  return Math.max(0, Math.min(want, Math.floor(width / 2)));
}

/**
 * The line as lines of at most `width` cells; the text of the pieces, read in order with the
 * continuation indents and marks removed, is the line itself.
 */
export function wrapLine(text: string, width: number, opts: WrapOptions = {}): string[] {
  if (width <= 0 || cells(text) <= width) return [text];
  const command = opts.command === true;
  const indent = text.length - text.trimStart().length;
  const lead = text.slice(0, indent);
  const words = splitWords(text.slice(indent), command);
  if (words.length === 0) return [text];
  const contIndent = continuationIndent(text, command, width);
  const contLead = ' '.repeat(contIndent);
  // A broken command line ends in ` \`: keep room for it.
  const reserve = command ? cells(SHELL_CONTINUATION) : 0;
  const out: string[] = [];
  let line = lead;
  let lineHasWord = false;
  const flush = (more: boolean) => {
    out.push(more && command ? `${line}${SHELL_CONTINUATION}` : line);
    line = contLead;
    lineHasWord = false;
  };
  words.forEach((w, i) => {
    const last = i === words.length - 1;
    const room = width - (last ? 0 : reserve);
    const joined = lineHasWord ? `${line}${w.sep}${w.text}` : `${line}${w.text}`;
    if (cells(joined) <= room) {
      line = joined;
      lineHasWord = true;
      return;
    }
    if (lineHasWord) flush(true);
    // On a line of its own now: fits, or is cut with a mark at the end of each piece.
    if (cells(line) + cells(w.text) <= room) {
      line += w.text;
      lineHasWord = true;
      return;
    }
    let rest = [...w.text];
    while (cells(line) + rest.length > room) {
      const n = Math.max(1, width - cells(line) - cells(CUT_MARK));
      out.push(`${line}${rest.slice(0, n).join('')}${CUT_MARK}`);
      rest = rest.slice(n);
      line = contLead;
    }
    line += rest.join('');
    lineHasWord = true;
  });
  if (lineHasWord || out.length === 0) out.push(line);
  return out;
}
