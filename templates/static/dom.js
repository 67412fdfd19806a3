/* pusoy-pit: the few DOM helpers the table screen's modules share. */

/** The first element under `root` matching `sel`. */
export function q(sel, root) { return root.querySelector(sel); }

/** Every element under `root` matching `sel`, as an array. */
export function qa(sel, root) { return Array.prototype.slice.call(root.querySelectorAll(sel)); }

/** `s` quoted for use inside an attribute selector. */
export function esc(s) { return typeof CSS !== 'undefined' && CSS.escape ? CSS.escape(s) : s.replace(/["\\]/g, '\\$&'); }

/** A new element with an optional class and text. */
export function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text != null) e.textContent = text;
  return e;
}
