/* pusoy-pit: the 52-card picker of the table screen. It fills one target field at a time,
 * walking the hands in table order (back, middle, front of each place that sets its hands;
 * the dealt cards of a place that only shows them), greys out cards used elsewhere and says
 * where, and takes a tapped card out again. One tab stop for keyboards (roving.js).
 *
 * createPicker(round, element, screen) -> { build, render, target, setTarget, defaultTarget,
 * retarget }; `screen` gives changed(field) (a field's text was changed here), validate() and
 * render() (the whole screen, this picker included).
 */
import { SUIT_NAME, SUIT_SYMBOL, tokenize, parseToken, cardLabel } from './cards.js';
import { rovingGrid } from './roving.js';
import { q, el } from './dom.js';
import { SET_KINDS, isActive, setsHands, fieldLabel, fieldWhere, tokenCount } from './round-model.js';

export function createPicker(round, picker, screen) {
  const fields = round.fields;
  let target = null;
  const pick = {};  // card -> button
  let flashTimer = 0;

  function build() {
    if (!picker) return;
    picker.textContent = '';
    picker.classList.add('picker');
    picker.setAttribute('role', 'group');
    picker.setAttribute('aria-label', 'Card picker');

    const bar = el('div', 'picker-bar');
    const tgt = el('p', 'picker-target');
    tgt.setAttribute('aria-live', 'polite');
    tgt.append('Adding to: ', el('strong', 'picker-field', '\u2014'), ' ', el('span', 'picker-count', ''));
    const msg = el('p', 'picker-msg');
    msg.setAttribute('role', 'status');
    const back = el('button', 'picker-btn picker-undo', '\u232b');
    back.type = 'button';
    back.title = 'Remove last card';
    back.setAttribute('aria-label', 'Remove last card');
    const clear = el('button', 'picker-btn picker-clear', 'Clear field');
    clear.type = 'button';
    const toggle = el('button', 'picker-btn picker-toggle', 'Hide cards');
    toggle.type = 'button';
    toggle.setAttribute('aria-expanded', 'true');
    bar.append(tgt, msg, back, clear, toggle);

    const grid = el('div', 'picker-grid');
    grid.id = 'picker-grid';
    toggle.setAttribute('aria-controls', grid.id);
    const rows = [];
    ['s', 'h', 'd', 'c'].forEach(function (s) {
      const buttons = [];
      rows.push(buttons);
      const row = el('div', 'picker-row suit-' + s + (s === 'h' || s === 'd' ? ' red' : ' black'));
      row.setAttribute('role', 'group');
      row.setAttribute('aria-label', SUIT_NAME[s]);
      'AKQJT98765432'.split('').forEach(function (r) {
        const card = r + s;
        const b = el('button', 'pick');
        b.type = 'button';
        b.setAttribute('data-card', card);
        b.setAttribute('aria-label', cardLabel(card));
        b.append(el('span', 'pick-rank', r === 'T' ? '10' : r), el('span', 'pick-suit', SUIT_SYMBOL[s]));
        pick[card] = b;
        buttons.push(b);
        row.appendChild(b);
      });
      grid.appendChild(row);
    });
    picker.append(bar, grid);
    picker.hidden = false;
    rovingGrid(rows);

    // A tap must not leave a text input focused (that keeps the on-screen keyboard up).
    picker.addEventListener('pointerdown', function () {
      const a = document.activeElement;
      if (a && a.classList && a.classList.contains('cards')) a.blur();
    });
    picker.addEventListener('click', function (e) {
      const b = e.target.closest('button');
      if (!b || !picker.contains(b)) return;
      if (b.hasAttribute('data-card')) onPick(b.getAttribute('data-card'));
      else if (b === back) editTarget(function (toks) { return toks.slice(0, -1); }, 'removed last card');
      else if (b === clear) editTarget(function () { return []; }, 'cleared');
      else if (b === toggle) {
        const collapsed = picker.classList.toggle('collapsed');
        toggle.textContent = collapsed ? 'Show cards' : 'Hide cards';
        toggle.setAttribute('aria-expanded', String(!collapsed));
      }
    });
  }

  function flash(text) {
    const m = picker && q('.picker-msg', picker);
    if (!m) return;
    m.textContent = text;
    clearTimeout(flashTimer);
    flashTimer = setTimeout(function () { m.textContent = ''; }, 3500);
  }

  // Where else a card is used, from the point of view of the target field.
  function usedElsewhere(card, t) {
    // Prefer naming a field of the same sort as the target (hand for a hand, dealt for dealt).
    const order = fields.filter(function (f) { return (f.kind === 'dealt') === (t.kind === 'dealt'); })
      .concat(fields.filter(function (f) { return (f.kind === 'dealt') !== (t.kind === 'dealt'); }));
    for (const f of order) {
      if (f === t || !isActive(f) || !f.parsed) continue;
      if (f.parsed.cards.indexOf(card) < 0) continue;
      const samePlace = f.place === t.place;
      // A place's dealt cards and its own set hands overlap by design.
      if (samePlace && (f.kind === 'dealt') !== (t.kind === 'dealt')) continue;
      return f;
    }
    return null;
  }

  // Order the picker walks through: per place, back/middle/front (or the dealt cards where
  // they are all the place shows, as for a royalty).
  function sequence() {
    const seq = [];
    round.places.forEach(function (p) {
      if (setsHands(p)) SET_KINDS.forEach(function (k) { seq.push(p.fields[k]); });
      else if (p.fields.dealt && isActive(p.fields.dealt)) seq.push(p.fields.dealt);
    });
    return seq;
  }

  function nextTarget(from) {
    const seq = sequence();
    let start = seq.indexOf(from) + 1;
    if (from.kind === 'dealt' && seq.indexOf(from) < 0 && from.place.fields.back) start = Math.max(0, seq.indexOf(from.place.fields.back));
    for (let i = start; i < seq.length; i++) if (tokenCount(seq[i]) < seq[i].count) return seq[i];
    return null;
  }

  /** The first empty hand in table order (else the first not full, else the first in play). */
  function defaultTarget() {
    const seq = sequence();
    return seq.find(function (f) { return tokenCount(f) === 0; }) ||
      seq.find(function (f) { return tokenCount(f) < f.count; }) ||
      seq[0] || fields.find(isActive) || null;
  }

  function setTarget(f, scroll) {
    if (f === target) return;
    if (target) {
      target.input.classList.remove('pp-target');
      if (target.wrapper) target.wrapper.classList.remove('pp-target-wrap');
      if (target.quiet && document.activeElement !== target.input) target.quiet = false;
    }
    target = f;
    if (f) {
      f.input.classList.add('pp-target');
      if (f.wrapper) f.wrapper.classList.add('pp-target-wrap');
      if (scroll && f.wrapper && f.wrapper.scrollIntoView) f.wrapper.scrollIntoView({ block: 'nearest', behavior: 'smooth' });
    }
  }

  /** After the actions changed: the first empty hand, unless a hand is being filled. */
  function retarget() {
    if (!target || !isActive(target) || tokenCount(target) === 0) setTarget(defaultTarget());
  }

  function writeTokens(f, tokens) {
    f.input.value = tokens.map(function (t) { return parseToken(t).card || t; }).join(' ');
    f.quiet = true;
    screen.changed(f);
  }

  function editTarget(fn, what) {
    if (!target || !isActive(target)) { setTarget(defaultTarget()); }
    if (!target) return;
    writeTokens(target, fn(tokenize(target.input.value)));
    flash(fieldLabel(target) + ': ' + what);
  }

  function onPick(card) {
    if (!target || !isActive(target)) setTarget(defaultTarget());
    const t = target;
    if (!t) { flash('No card field to fill'); return; }
    const tokens = tokenize(t.input.value);
    const idx = tokens.map(function (x) { return parseToken(x).card; });
    if (idx.indexOf(card) >= 0) {
      writeTokens(t, tokens.filter(function (x, i) { return idx[i] !== card; }));
      flash(card + ' removed from ' + fieldWhere(t));
      return;
    }
    screen.validate();
    const other = usedElsewhere(card, t);
    if (other) { screen.render(); flash(card + ' is already in ' + fieldWhere(other)); return; }
    if (tokens.length >= t.count) {
      screen.render();
      flash(fieldLabel(t) + ' already has ' + t.count + ' cards \u2014 tap one of them to take it out');
      return;
    }
    tokens.push(card);
    writeTokens(t, tokens);
    if (tokens.length >= t.count) {
      const next = nextTarget(t);
      if (next) { setTarget(next, true); screen.validate(); screen.render(); }
    }
  }

  function render() {
    if (!picker || picker.hidden) return;
    if (target && !isActive(target)) setTarget(defaultTarget());
    const t = target;
    const fieldEl = q('.picker-field', picker);
    const countEl = q('.picker-count', picker);
    fieldEl.textContent = t ? fieldLabel(t) : '\u2014';
    countEl.textContent = t ? tokenCount(t) + '/' + t.count : '';
    countEl.classList.toggle('over', !!t && tokenCount(t) > t.count);
    picker.classList.toggle('no-target', !t);
    const inTarget = new Set(t ? t.parsed.cards.filter(Boolean) : []);
    const dealt = t && t.kind !== 'dealt' && t.place.fields.dealt && isActive(t.place.fields.dealt) ?
      new Set(t.place.fields.dealt.parsed.cards.filter(Boolean)) : new Set();
    Object.keys(pick).forEach(function (card) {
      const b = pick[card];
      const chosen = inTarget.has(card);
      const used = !chosen && t ? usedElsewhere(card, t) : null;
      b.classList.toggle('chosen', chosen);
      b.classList.toggle('used', !!used);
      b.classList.toggle('in-dealt', !chosen && !used && dealt.has(card));
      b.setAttribute('aria-pressed', String(chosen));
      if (used) b.setAttribute('aria-disabled', 'true'); else b.removeAttribute('aria-disabled');
      b.title = used ? card + ' is in ' + fieldWhere(used) : '';
    });
  }

  return {
    build: build,
    render: render,
    target: function () { return target; },
    setTarget: setTarget,
    defaultTarget: defaultTarget,
    retarget: retarget
  };
}
