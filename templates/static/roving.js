/* pusoy-pit: roving focus for a grid of buttons (the 52-card picker): the grid is one tab stop,
 * the arrow keys move within it (Left/Right along a row, Up/Down between rows), Home/End go to
 * the row's ends. Keyboard users reach the buttons after the grid in one Tab.
 */

/** Makes the `rows` (arrays of buttons) of a grid one tab stop. */
export function rovingGrid(rows) {
  const all = [].concat.apply([], rows);
  if (!all.length) return;
  let current = all[0];
  function make(b) {
    all.forEach(function (x) { x.tabIndex = x === b ? 0 : -1; });
    current = b;
  }
  make(current);
  rows.forEach(function (row, r) {
    row.forEach(function (b, c) {
      b.addEventListener('focus', function () { if (current !== b) make(b); });
      b.addEventListener('keydown', function (e) {
        let to = null;
        if (e.key === 'ArrowRight') to = row[Math.min(c + 1, row.length - 1)];
        else if (e.key === 'ArrowLeft') to = row[Math.max(c - 1, 0)];
        else if (e.key === 'ArrowDown') to = rows[Math.min(r + 1, rows.length - 1)][c];
        else if (e.key === 'ArrowUp') to = rows[Math.max(r - 1, 0)][c];
        else if (e.key === 'Home') to = row[0];
        else if (e.key === 'End') to = row[row.length - 1];
        if (!to) return;
        e.preventDefault();
        make(to);
        to.focus();
      });
    });
  });
}
