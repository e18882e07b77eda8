// The labelling screen's keys: a digit grades, u undoes, s skips, ? shows or hides the
// list of keys and Escape hides it.

/** What a key press asks of the labelling screen. */
export type KeyAction =
  | { kind: 'grade'; grade: number }
  | { kind: 'undo' }
  | { kind: 'skip' }
  | { kind: 'toggle-help' }
  | { kind: 'close-help' };

/** The parts of a key press the labelling screen reads (a KeyboardEvent has them). */
export interface KeyPress {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
  /** Where the key was typed: an element, the page, or nothing. */
  target: { tagName?: string } | null;
}

/** Fields where keys are text (an item's note), never grades. */
const TYPING = ['INPUT', 'TEXTAREA', 'SELECT'];

/**
 * What a key press asks, or null when it is not the screen's: typed in a field, a shortcut
 * of the browser or the system (with Ctrl, Cmd or Alt), or a key that means nothing here.
 */
export function keyAction(press: KeyPress): KeyAction | null {
  if (press.target?.tagName !== undefined && TYPING.includes(press.target.tagName)) return null;
  if (press.ctrlKey || press.metaKey || press.altKey) return null;
  if (/^[0-9]$/.test(press.key)) return { kind: 'grade', grade: Number(press.key) };
  if (press.key === 'u') return { kind: 'undo' };
  if (press.key === 's') return { kind: 'skip' };
  if (press.key === '?') return { kind: 'toggle-help' };
  if (press.key === 'Escape') return { kind: 'close-help' };
  return null;
}
