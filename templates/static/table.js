/* pusoy-pit: dealer table screen, progressive enhancement.
 *
 * The server-rendered form works on its own (Preview / Confirm are full POSTs).
 * This script only adds: local card parsing and duplicate checks, normalising
 * card text, card faces, show/hide by action, a 52-card picker, a debounced live
 * check against data-check-url (which saves the form as typed, valid or not, and
 * answers every problem at once), "same players and bets" and Confirm safety.
 *
 * Modules beside it: cards.js (the card parser), duplicates.js (the duplicate
 * check), card-faces.js (a hand as card faces), roving.js (the picker as one tab
 * stop). Sections below: 2 model (places and fields), 3 validation and rendering,
 * 4 picker, 5 live check, 6 events and start-up.
 * No framework, no inline styles (CSP: script-src/style-src 'self').
 */
import {
  SUIT_NAME, SUIT_SYMBOL, PREFIX, tokenize, parseToken, parseText, cardLabel
} from './cards.js';
import { duplicates } from './duplicates.js';
import { renderFaces } from './card-faces.js';
import { rovingGrid } from './roving.js';

(function () {
  'use strict';

  var form = document.getElementById('round-form');
  if (!form || typeof window.fetch !== 'function' || typeof window.FormData !== 'function') return;

  /* ------------------------------------------------------------------ */
  /* 2. Model: places and fields, found by name/class/data attributes    */
  /* ------------------------------------------------------------------ */

  const CARD_KINDS = ['dealt', 'back', 'middle', 'front'];
  const SET_KINDS = ['back', 'middle', 'front'];
  // Under which actions a field kind is hidden (see table.css).
  const HIDDEN_UNDER = {
    bet: ['empty'],
    dealt: ['empty', 'surrender'],
    back: ['empty', 'surrender', 'royalty'],
    middle: ['empty', 'surrender', 'royalty'],
    front: ['empty', 'surrender', 'royalty']
  };

  const q = function (sel, root) { return (root || form).querySelector(sel); };
  const qa = function (sel, root) { return Array.prototype.slice.call((root || form).querySelectorAll(sel)); };
  const esc = function (s) { return window.CSS && CSS.escape ? CSS.escape(s) : s.replace(/["\\]/g, '\\$&'); };
  const byName = function (name) { return q('[name="' + esc(name) + '"]'); };

  function lowerPlaceName(id) {
    const m = /^seat(\d+)$/.exec(id);
    return m ? 'seat ' + m[1] : id;
  }

  const places = qa('.place[data-place]').map(function (section) {
    const id = section.getAttribute('data-place');
    const heading = q('h1,h2,h3,h4', section);
    const lower = lowerPlaceName(id);
    const place = {
      id: id,
      section: section,
      title: (heading && heading.textContent.trim()) || lower.charAt(0).toUpperCase() + lower.slice(1),
      lower: lower,
      action: q('select[name="' + esc(id + '_action') + '"]', section) || q('select[name$="_action"]', section),
      bet: q('[name="' + esc(id + '_bet') + '"]', section),
      fields: {}
    };
    qa('input.cards', section).forEach(function (input) {
      const suffix = (input.name || '').split('_').pop();
      const count = parseInt(input.getAttribute('data-count'), 10) || (suffix === 'front' ? 3 : suffix === 'dealt' ? 13 : 5);
      const kind = CARD_KINDS.indexOf(suffix) >= 0 ? suffix : count === 13 ? 'dealt' : null;
      if (!kind || place.fields[kind]) return;
      place.fields[kind] = {
        input: input, name: input.name, kind: kind, count: count, place: place,
        quiet: false,      // being typed / tapped into: don't nag about the count yet
        parsed: null,
        local: []          // local messages, most important first
      };
    });
    return place;
  });
  if (!places.length) return;

  // Card fields in document order (Enter moves along this order).
  const fields = qa('input.cards').map(function (input) {
    for (const p of places) for (const k in p.fields) if (p.fields[k].input === input) return p.fields[k];
    return null;
  }).filter(Boolean);
  const fieldByInput = new Map(fields.map(function (f) { return [f.input, f]; }));

  function actionOf(place) {
    if (!place.action) return 'play';
    const v = place.action.value;
    return v === '' ? 'empty' : v;
  }
  function isActive(field) {
    const a = actionOf(field.place);
    const hidden = HIDDEN_UNDER[field.kind];
    return hidden.indexOf(a) < 0;
  }
  function fieldLabel(field) { return field.place.title + ' \u00b7 ' + field.kind; }
  function fieldWhere(field) { return field.place.lower + ' ' + field.kind; }

  // Field-error element for a name; created (inside the field's wrapper) if the server left it out.
  const errorEls = {};
  function errorEl(name) {
    if (errorEls[name] && errorEls[name].isConnected) return errorEls[name];
    let el = q('.field-error[data-for="' + esc(name) + '"]');
    const control = byName(name);
    if (!el && control) {
      el = document.createElement('p');
      el.className = 'field-error';
      el.setAttribute('data-for', name);
      control.insertAdjacentElement('afterend', el);
    }
    if (el && control) {
      if (!el.id) el.id = 'err-' + name;
      const d = (control.getAttribute('aria-describedby') || '').split(/\s+/).filter(Boolean);
      if (d.indexOf(el.id) < 0) { d.push(el.id); control.setAttribute('aria-describedby', d.join(' ')); }
    }
    errorEls[name] = el;
    return el;
  }

  /* Structure: give every control of a place a wrapper that holds its label, the control and
   * its error, tag wrappers with the field kind (for layout) and with the actions under which
   * they are hidden (data-pp-hide; CSS hides them from the section's data-action). */
  function enhanceStructure(place) {
    const section = place.section;
    const controls = [];
    if (place.action) controls.push({ el: place.action, kind: 'action' });
    if (place.bet) controls.push({ el: place.bet, kind: 'bet' });
    for (const k of CARD_KINDS) if (place.fields[k]) controls.push({ el: place.fields[k].input, kind: k });
    const isControl = function (n) { return n.matches('input:not([type=hidden]),select,textarea'); };
    const countControls = function (n) { return qa('input:not([type=hidden]),select,textarea', n).length + (isControl(n) ? 1 : 0); };

    controls.forEach(function (c) {
      // Topmost ancestor inside the section that holds only this control.
      let w = c.el;
      while (w.parentElement && w.parentElement !== section && countControls(w.parentElement) === 1) w = w.parentElement;
      let label = c.el.id ? q('label[for="' + esc(c.el.id) + '"]', section) : null;
      if (!label && w === c.el && w.previousElementSibling && w.previousElementSibling.tagName === 'LABEL' &&
          countControls(w.previousElementSibling) === 0) label = w.previousElementSibling;
      const err = c.el.name ? q('.field-error[data-for="' + esc(c.el.name) + '"]', section) : null;
      const needsWrap = w === c.el || w.tagName === 'LABEL' ||
        (label && !w.contains(label)) || (err && !w.contains(err));
      if (needsWrap) {
        const div = document.createElement('div');
        div.className = 'pp-field';
        w.parentElement.insertBefore(div, (label && !w.contains(label) && label.parentElement === w.parentElement) ? label : w);
        if (label && !w.contains(label)) div.appendChild(label);
        div.appendChild(w);
        if (err && !w.contains(err)) div.appendChild(err);
        w = div;
      }
      w.setAttribute('data-pp-kind', c.kind);
      if (HIDDEN_UNDER[c.kind]) w.setAttribute('data-pp-hide', HIDDEN_UNDER[c.kind].join(' '));
      if (c.kind !== 'action' && c.kind !== 'bet') place.fields[c.kind].wrapper = w;
    });

    // Containers holding several of our fields (e.g. a fieldset around the hands) hide when all do.
    qa('*', section).forEach(function (el) {
      if (el.hasAttribute('data-pp-kind')) return;
      const inner = qa('input:not([type=hidden]),select,textarea', el);
      if (inner.length < 2) return;
      let hide = null;
      for (const ctl of inner) {
        const w = ctl.closest('[data-pp-kind]');
        const h = w && w.getAttribute('data-pp-hide');
        if (!h) { hide = []; break; }
        const set = h.split(' ');
        hide = hide === null ? set : hide.filter(function (a) { return set.indexOf(a) >= 0; });
      }
      if (hide && hide.length) el.setAttribute('data-pp-hide', hide.join(' '));
    });

    // Grid layout only when the section is flat (heading, field wrappers, notes).
    const flat = Array.prototype.every.call(section.children, function (ch) {
      return /^H[1-6]$/.test(ch.tagName) || ch.hasAttribute('data-pp-kind') ||
        ch.classList.contains('place-note') || ch.classList.contains('field-error') || ch.tagName === 'INPUT';
    });
    section.classList.toggle('pp-grid', flat);
    const note = q('.place-note[data-for="' + esc(place.id) + '"]', section);
    if (note) note.setAttribute('aria-live', 'polite');

    // The 13 dealt cards are optional when playing: folded into a button until wanted, so the
    // hands of all four places need less scrolling. A royalty always shows them (see CSS).
    const dealt = place.fields.dealt;
    if (dealt && dealt.wrapper && !dealt.input.value.trim() && !dealt.input.classList.contains('is-invalid') &&
        !(serverErrors[dealt.name])) {
      dealt.wrapper.classList.add('pp-folded');
      const open = document.createElement('button');
      open.type = 'button';
      open.className = 'pp-show-dealt';
      open.textContent = '+ Dealt cards (optional)';
      open.setAttribute('aria-controls', dealt.input.id || '');
      open.setAttribute('data-pp-hide', 'empty surrender royalty');
      dealt.wrapper.insertAdjacentElement('beforebegin', open);
      open.addEventListener('click', function () {
        dealt.wrapper.classList.remove('pp-folded');
        open.remove();
        dealt.input.focus();
      });
    }
  }

  /* ------------------------------------------------------------------ */
  /* 3. Validation and rendering                                          */
  /* ------------------------------------------------------------------ */

  let serverErrors = {};   // name -> message from the server (initial HTML or last check)
  qa('.field-error[data-for]').forEach(function (el) {
    const t = el.textContent.trim();
    if (t) serverErrors[el.getAttribute('data-for')] = t;
  });

  function validCards(f) { return f.parsed.cards.filter(Boolean); }
  function isComplete(f) { return f.parsed.errors.length === 0 && f.parsed.tokens.length === f.count; }

  function listCards(cards) { return cards.join(', '); }

  function validate() {
    fields.forEach(function (f) { f.parsed = parseText(f.input.value); f.local = []; f.blocking = false; });

    // Parse errors and counts.
    fields.forEach(function (f) {
      if (!isActive(f)) return;
      const p = f.parsed;
      if (p.errors.length) {
        f.blocking = true;
        const e = p.errors[0];
        const halfTyped = f.quiet && p.errors.length === 1 && e.index === p.tokens.length - 1 &&
          !p.trailingSep && PREFIX.test(e.token);
        if (!halfTyped) {
          let m = 'card ' + (e.index + 1) + ' `' + e.token + '` is not a card (' + e.hint + ')';
          if (p.errors.length > 1) m += ', and ' + (p.errors.length - 1) + ' more';
          f.local.push(m);
        }
        return;
      }
      const n = p.tokens.length;
      if (n > 0 && n !== f.count && (!f.quiet || n > f.count)) {
        f.local.push(f.kind + ' needs ' + f.count + ' cards, has ' + n);
      }
    });

    // Duplicates across every card field in play, dealt cards included (duplicates.js).
    const active = fields.filter(isActive);
    const dups = duplicates(active.map(function (f) {
      return { name: f.name, place: f.place.id, kind: f.kind, cards: validCards(f), field: f };
    }), function (d) { return fieldWhere(d.field); });
    active.forEach(function (f) {
      const m = dups.get(f.name);
      if (m) { f.blocking = true; f.local.push(m); }
    });
    const inPlay = places.filter(function (p) { return actionOf(p) === 'play'; });

    // Within a place: the 13 set cards must be the dealt cards.
    inPlay.forEach(function (p) {
      const dealt = p.fields.dealt;
      const hands = SET_KINDS.map(function (k) { return p.fields[k]; });
      if (!dealt || hands.some(function (h) { return !h; })) return;
      if (!isComplete(dealt) || !hands.every(isComplete)) return;
      const dealtSet = new Set(dealt.parsed.cards);
      const setCards = new Set();
      hands.forEach(function (h) {
        const extra = h.parsed.cards.filter(function (c) { setCards.add(c); return !dealtSet.has(c); });
        if (extra.length === 1) h.local.push('set uses ' + extra[0] + ', which is not in the dealt cards');
        else if (extra.length) h.local.push('set uses ' + listCards(extra) + ', which are not in the dealt cards');
      });
      const missing = dealt.parsed.cards.filter(function (c) { return !setCards.has(c); });
      if (missing.length === 1) dealt.local.push('dealt ' + missing[0] + ' is not in the set hands');
      else if (missing.length) dealt.local.push('dealt ' + listCards(missing) + ' are not in the set hands');
    });
  }

  function showError(name, control, message) {
    const el = errorEl(name);
    if (el) el.textContent = message;
    if (control) {
      if (message) control.setAttribute('aria-invalid', 'true');
      else control.removeAttribute('aria-invalid');
      control.classList.toggle('is-invalid', !!message);
    }
  }

  function render() {
    places.forEach(function (p) {
      p.section.setAttribute('data-action', actionOf(p));
      ['action', 'bet'].forEach(function (k) {
        const c = p[k];
        if (c && c.name) showError(c.name, c, k === 'bet' && actionOf(p) === 'empty' ? '' : serverErrors[c.name] || '');
      });
    });
    fields.forEach(function (f) {
      let msg = '';
      if (isActive(f)) {
        msg = f.local.slice(0, 2).join('; ');
        if (!msg && !f.quiet) msg = serverErrors[f.name] || '';
      }
      showError(f.name, f.input, msg);
      if (f.faces) renderFaces(f.faces, isActive(f) ? f.input.value : '');
    });
    renderPicker();
  }

  function refresh() { validate(); render(); }

  function normalise(f) {
    const p = parseText(f.input.value);
    if (p.tokens.length && !p.errors.length) {
      const text = p.cards.join(' ');
      if (text !== f.input.value) f.input.value = text;
    }
  }

  /* ------------------------------------------------------------------ */
  /* 4. The 52-card picker                                               */
  /* ------------------------------------------------------------------ */

  const picker = document.getElementById('picker');
  let target = null;
  const pick = {};  // card -> button

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text != null) e.textContent = text;
    return e;
  }

  function buildPicker() {
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

  let flashTimer = 0;
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

  // Order the picker walks through: per place, back/middle/front (or dealt for a royalty).
  function sequence() {
    const seq = [];
    places.forEach(function (p) {
      const a = actionOf(p);
      if (a === 'empty' || a === 'surrender') return;
      if (a === 'royalty') { if (p.fields.dealt) seq.push(p.fields.dealt); return; }
      SET_KINDS.forEach(function (k) { if (p.fields[k]) seq.push(p.fields[k]); });
    });
    return seq;
  }
  const tokenCount = function (f) { return tokenize(f.input.value).length; };

  function nextTarget(from) {
    const seq = sequence();
    let start = seq.indexOf(from) + 1;
    if (from.kind === 'dealt' && seq.indexOf(from) < 0 && from.place.fields.back) start = Math.max(0, seq.indexOf(from.place.fields.back));
    for (let i = start; i < seq.length; i++) if (tokenCount(seq[i]) < seq[i].count) return seq[i];
    return null;
  }

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

  function writeTokens(f, tokens) {
    f.input.value = tokens.map(function (t) { return parseToken(t).card || t; }).join(' ');
    f.quiet = true;
    changed(f);
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
    validate();
    const other = usedElsewhere(card, t);
    if (other) { render(); flash(card + ' is already in ' + fieldWhere(other)); return; }
    if (tokens.length >= t.count) {
      render();
      flash(fieldLabel(t) + ' already has ' + t.count + ' cards \u2014 tap one of them to take it out');
      return;
    }
    tokens.push(card);
    writeTokens(t, tokens);
    if (tokens.length >= t.count) {
      const next = nextTarget(t);
      if (next) { setTarget(next, true); refresh(); }
    }
  }

  function renderPicker() {
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

  /* ------------------------------------------------------------------ */
  /* 5. Live server check (also saves the draft) and Confirm safety      */
  /* ------------------------------------------------------------------ */

  const checkUrl = form.getAttribute('data-check-url');
  const preview = document.getElementById('preview');
  const csrf = byName('csrf_token');
  const revision = byName('revision');
  const draftKey = byName('draft_key');
  const previewBtn = q('button[name="step"][value="preview"]');
  let confirmBtn = q('button[name="step"][value="confirm"]');
  let canConfirm = !!confirmBtn;     // the server renders Confirm only with a valid preview
  let dirty = false;                 // changed since the last successful check was sent
  let inflight = false;
  let again = false;                 // a change arrived while a check was in flight
  let submitting = false;
  let signedOut = false;
  let seq = 0;
  let checkTimer = 0;
  let status = null;
  let actionBar = null;
  let barNet = null;                 // the house's result of the previewed round, in the bar

  function setupActionBar() {
    const anchor = previewBtn || confirmBtn;
    if (!anchor) return;
    const parent = anchor.parentElement;
    if (parent !== form && Array.prototype.every.call(parent.children, function (c) { return c.matches('button,p,span'); })) {
      actionBar = parent;
    } else {
      actionBar = el('div');
      parent.insertBefore(actionBar, anchor);
      qa('button[name="step"]').forEach(function (b) { if (b.parentElement === parent) actionBar.appendChild(b); });
    }
    actionBar.classList.add('action-bar');
    status = q('.save-status') || el('p', 'save-status');
    status.setAttribute('role', 'status');
    status.setAttribute('aria-live', 'polite');
    actionBar.insertBefore(status, actionBar.firstChild);
    barNet = el('p', 'bar-net');
    barNet.setAttribute('aria-live', 'polite');
    status.insertAdjacentElement('afterend', barNet);
    showNet();
  }

  // The previewed round's house result next to the buttons, so it is seen without scrolling.
  function showNet() {
    if (!barNet) return;
    const net = preview && preview.querySelector('.dealer-net strong');
    barNet.textContent = net ? 'House this round: ' + net.textContent.trim() : '';
  }

  function setStatus(text, state) {
    if (!status) return;
    status.textContent = text;
    status.setAttribute('data-state', state || '');
  }

  function ensureConfirm() {
    if (confirmBtn && confirmBtn.isConnected) return confirmBtn;
    confirmBtn = el('button', 'confirm', 'Confirm');
    confirmBtn.name = 'step';
    confirmBtn.value = 'confirm';
    confirmBtn.type = 'submit';
    (actionBar || form).appendChild(confirmBtn);
    return confirmBtn;
  }

  function updateConfirm() {
    // Whether a change is still on its way to the server (tests and people wait for "no").
    form.setAttribute('data-saving', dirty || inflight ? 'yes' : 'no');
    if (!confirmBtn) return;
    confirmBtn.classList.add('confirm');
    confirmBtn.disabled = submitting || inflight || dirty || !canConfirm;
  }

  function hasBlockingErrors() {
    return fields.some(function (f) { return isActive(f) && f.blocking; });
  }

  function scheduleCheck() {
    dirty = true;
    updateConfirm();
    clearTimeout(checkTimer);
    if (!checkUrl || signedOut || submitting) return;
    checkTimer = setTimeout(runCheck, 250);
  }

  function checkBody() {
    // Every field as typed, valid or not: the server stores it so and checks it separately.
    const fd = new FormData(form);
    fd.set('step', 'check');
    const body = new URLSearchParams();
    fd.forEach(function (v, k) { if (typeof v === 'string') body.append(k, v); });
    return body;
  }

  async function runCheck() {
    if (inflight) { again = true; return; }
    validate();
    if (hasBlockingErrors()) {
      // The preview shown is of the cards before the mistake: grey it out until fixed.
      if (preview) preview.classList.add('stale');
      if (barNet) barNet.textContent = '';
    }
    const my = ++seq;
    inflight = true;
    dirty = false;
    updateConfirm();
    setStatus('Saving\u2026', 'busy');
    const ctrl = typeof AbortController === 'function' ? new AbortController() : null;
    const timeout = setTimeout(function () { if (ctrl) ctrl.abort(); }, 15000);
    let outcome = 'network';
    let data = null;
    let code = 0;
    try {
      const res = await fetch(checkUrl, {
        method: 'POST',
        body: checkBody(),
        headers: { 'X-CSRF-Token': csrf ? csrf.value : '', 'Accept': 'application/json' },
        credentials: 'same-origin',
        signal: ctrl ? ctrl.signal : undefined
      });
      code = res.status;
      if (code === 401 || code === 403) outcome = 'auth';
      else if (code === 409) {
        // 409 says why in `code`: not on shift at this table, or the round moved on elsewhere.
        const why = await res.json().catch(function () { return {}; });
        outcome = why && why.code === 'not_on_shift' ? 'off-shift' : 'conflict';
      }
      else if (code >= 500) outcome = 'network';
      else {
        const type = res.headers.get('Content-Type') || '';
        if ((res.ok || code === 422) && type.indexOf('json') >= 0) { data = await res.json(); outcome = 'ok'; }
        else outcome = 'refused';
      }
    } catch (e) {
      outcome = 'network';
    } finally {
      clearTimeout(timeout);
    }
    inflight = false;
    if (my !== seq) return; // an out-of-order reply: a newer check owns the screen
    if (outcome === 'ok' && data && typeof data === 'object') {
      applyCheck(data);
      // Exactly what the server stored: as typed, with how many problems, or ready to confirm.
      const stored = typeof data.stored === 'string' ? data.stored : 'Saved';
      const problems = data.field_errors && Object.keys(data.field_errors).length;
      if (dirty || again) setStatus(stored + ' \u2014 saving the latest changes\u2026', 'busy');
      else setStatus(stored, problems ? 'warn' : 'ok');
    } else {
      dirty = true;
      if (outcome === 'auth') { signedOut = true; setStatus('Signed out \u2014 reload the page', 'error'); }
      else if (outcome === 'conflict') { signedOut = true; setStatus('Changed on another screen \u2014 reload the page', 'error'); }
      else if (outcome === 'off-shift') { signedOut = true; setStatus('Not signed on at this table \u2014 sign on from the tables page', 'error'); }
      else if (outcome === 'refused') setStatus('Not saved \u2014 the server refused the check (' + code + ')', 'error');
      else setStatus('Not saved \u2014 check connection', 'error');
    }
    updateConfirm();
    if (again && !signedOut) { again = false; scheduleCheck(); }
  }

  function applyCheck(data) {
    if (revision && data.revision != null) revision.value = String(data.revision);
    if (draftKey && typeof data.draft_key === 'string') draftKey.value = data.draft_key;
    if (data.confirm_question) form.setAttribute('data-confirm-question', String(data.confirm_question));
    else form.removeAttribute('data-confirm-question');
    serverErrors = {};
    const stray = [];
    const fe = data.field_errors && typeof data.field_errors === 'object' ? data.field_errors : {};
    Object.keys(fe).forEach(function (name) {
      if (!fe[name]) return;
      if (byName(name) || q('.field-error[data-for="' + esc(name) + '"]')) serverErrors[name] = String(fe[name]);
      else stray.push(String(fe[name]));
    });
    const notes = data.place_notes && typeof data.place_notes === 'object' ? data.place_notes : {};
    if (preview && typeof data.preview_html === 'string') preview.innerHTML = data.preview_html;
    if (preview) preview.classList.remove('stale');
    showNotes(notes);
    showNet();
    canConfirm = !!data.can_confirm;
    if (canConfirm) ensureConfirm();
    render();
    if (stray.length) flashStatusExtra(stray.join('; '));
  }

  // Notes next to each place's hands: the server's, else the preview's foul explanation.
  function showNotes(notes) {
    places.forEach(function (p) {
      const note = q('.place-note[data-for="' + esc(p.id) + '"]');
      const row = preview && preview.querySelector('tr[data-place="' + esc(p.lower) + '"] .foul-reason');
      const text = notes[p.id] ? String(notes[p.id]) : row ? row.textContent.trim() : '';
      if (note) note.textContent = text;
      p.section.classList.toggle('is-fouled', /^foul/i.test(text));
    });
  }

  function flashStatusExtra(text) {
    if (!status) return;
    let extra = q('.save-status-extra', status.parentElement);
    if (!extra) { extra = el('p', 'save-status-extra'); status.insertAdjacentElement('afterend', extra); }
    extra.textContent = text;
  }

  /* ------------------------------------------------------------------ */
  /* 6. Events and start-up                                              */
  /* ------------------------------------------------------------------ */

  function changed(f) {
    if (f) delete serverErrors[f.name];
    refresh();
    scheduleCheck();
  }

  form.addEventListener('input', function (e) {
    const f = fieldByInput.get(e.target);
    if (f) { f.quiet = true; changed(f); return; }
    if (e.target.name && e.target.name !== 'csrf_token') { delete serverErrors[e.target.name]; refresh(); scheduleCheck(); }
  });

  form.addEventListener('change', function (e) {
    const t = e.target;
    if (t.tagName === 'SELECT' && /_action$/.test(t.name)) {
      delete serverErrors[t.name];
      refresh();
      // The picker goes to the first empty hand in table order unless one is being filled.
      if (!target || !isActive(target) || tokenCount(target) === 0) setTarget(defaultTarget());
      refresh();
      scheduleCheck();
    }
  });

  form.addEventListener('focusin', function (e) {
    const f = fieldByInput.get(e.target);
    if (f) { setTarget(f); renderPicker(); }
  });

  form.addEventListener('focusout', function (e) {
    const f = fieldByInput.get(e.target);
    if (!f) return;
    const before = f.input.value;
    normalise(f);
    f.quiet = false;
    refresh();
    if (f.input.value !== before) scheduleCheck();
  });

  form.addEventListener('keydown', function (e) {
    const f = fieldByInput.get(e.target);
    if (!f || e.key !== 'Enter' || e.isComposing) return;
    e.preventDefault();
    // The 13 dealt cards are optional when playing: Enter goes from hand to hand past them.
    const visible = fields.filter(function (g) {
      return isActive(g) && (g === f || g.kind !== 'dealt' || actionOf(g.place) === 'royalty' || g.input.value.trim() !== '');
    });
    const next = visible[visible.indexOf(f) + 1];
    if (next) next.input.focus();
    else { normalise(f); f.input.blur(); }
  });

  // Confirm: full-page POST, once. Disable after the submit event so the button's
  // name/value still go into the form data set.
  let lastSubmitter = null;
  form.addEventListener('click', function (e) {
    const b = e.target.closest('button[type="submit"],button:not([type])');
    if (b) lastSubmitter = b;
  });
  form.addEventListener('submit', function (e) {
    const s = e.submitter || lastSubmitter;
    clearTimeout(checkTimer);
    if (s && s.name === 'step' && s.value === 'confirm') {
      if (submitting || inflight || dirty || !canConfirm) { e.preventDefault(); updateConfirm(); return; }
      // The table asks once ("Confirm 3 seats, house +800.00 PHP?") when its settings say so.
      const question = form.getAttribute('data-confirm-question');
      if (question && !window.confirm(question)) { e.preventDefault(); return; }
      submitting = true;
      setStatus('Confirming\u2026', 'busy');
      setTimeout(updateConfirm, 0);
    }
    fields.forEach(normalise);
  });

  // "Same players and bets as last round": one tap puts the last round's seats in play with
  // their bets (data-seats="seat1=500;seat3=200"), then the picker goes to the first hand.
  function setupSameAgain() {
    const button = q('button.same-again');
    if (!button) return;
    button.hidden = false;
    button.addEventListener('click', function () {
      (button.getAttribute('data-seats') || '').split(';').forEach(function (pair) {
        const [seat, bet] = pair.split('=');
        const place = places.find(function (p) { return p.id === seat; });
        if (!place || !place.action) return;
        if (place.action.value === '') place.action.value = 'play';
        if (place.bet) { place.bet.value = bet; delete serverErrors[place.bet.name]; }
      });
      refresh();
      setTarget(defaultTarget());
      refresh();
      scheduleCheck();
    });
  }

  // Back/forward cache: the page can come back with Confirm still marked as submitting.
  window.addEventListener('pageshow', function (e) {
    if (e.persisted) { submitting = false; updateConfirm(); }
  });
  window.addEventListener('online', function () { if (dirty && !signedOut) scheduleCheck(); });

  // Start-up.
  places.forEach(enhanceStructure);
  fields.forEach(function (f) {
    f.input.setAttribute('enterkeyhint', 'next');
    f.input.setAttribute('autocorrect', 'off');
    errorEl(f.name);
    f.faces = el('div', 'faces');
    f.faces.setAttribute('aria-hidden', 'true');
    f.input.insertAdjacentElement('afterend', f.faces);
  });
  setupSameAgain();
  form.classList.add('js');
  const grid = places[0].section.parentElement;
  if (grid !== form && places.every(function (p) { return p.section.parentElement === grid; })) grid.classList.add('pp-places');
  setupActionBar();
  showNotes({});
  buildPicker();
  validate();
  setTarget(defaultTarget());
  render();
  updateConfirm();
})();
