import { describe, expect, it } from 'vitest';
import { keyAction, type KeyPress } from '../src/lib/labelling-keys.js';

const press = (key: string, more: Partial<KeyPress> = {}): KeyPress => ({
  key,
  ctrlKey: false,
  metaKey: false,
  altKey: false,
  target: { tagName: 'BODY' },
  ...more,
});

describe('the labelling keys', () => {
  it('grade with a digit, undo with u, skip with s, show the keys with ? and hide them with Escape', () => {
    expect(keyAction(press('0'))).toEqual({ kind: 'grade', grade: 0 });
    expect(keyAction(press('3'))).toEqual({ kind: 'grade', grade: 3 });
    expect(keyAction(press('9'))).toEqual({ kind: 'grade', grade: 9 });
    expect(keyAction(press('u'))).toEqual({ kind: 'undo' });
    expect(keyAction(press('s'))).toEqual({ kind: 'skip' });
    expect(keyAction(press('?'))).toEqual({ kind: 'toggle-help' });
    expect(keyAction(press('Escape'))).toEqual({ kind: 'close-help' });
  });

  it('leave every other key to the browser', () => {
    for (const key of ['10', 'U', 'S', 'x', 'Enter', ' ', 'ArrowRight', 'F5'])
      expect(keyAction(press(key)), key).toBeNull();
  });

  it('are text in a field (an item note) and shortcuts with Ctrl, Cmd or Alt, never grades', () => {
    for (const tagName of ['INPUT', 'TEXTAREA', 'SELECT'])
      expect(keyAction(press('2', { target: { tagName } })), tagName).toBeNull();
    expect(keyAction(press('2', { ctrlKey: true }))).toBeNull();
    expect(keyAction(press('u', { metaKey: true }))).toBeNull();
    expect(keyAction(press('s', { altKey: true }))).toBeNull();
    // Pressed on the page itself (no element, or one without a tag such as the window).
    expect(keyAction(press('2', { target: null }))).toEqual({ kind: 'grade', grade: 2 });
    expect(keyAction(press('2', { target: {} }))).toEqual({ kind: 'grade', grade: 2 });
    expect(keyAction(press('2', { target: { tagName: 'BUTTON' } }))).toEqual({
      kind: 'grade',
      grade: 2,
    });
  });
});
