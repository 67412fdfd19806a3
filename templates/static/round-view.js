/* pusoy-pit: how the round's form looks on the table screen. Gives every control a wrapper
 * holding its label, the control and its error (tagged with the actions under which it hides,
 * for table.css), folds the optional dealt cards away, shows each field's message (the
 * screen's own first, else the server's) and its cards as faces.
 */
import { renderFaces } from './card-faces.js';
import { q, qa, esc, el } from './dom.js';
import { CARD_KINDS, actionOf, isActive, byName, problemShown } from './round-model.js';

/** The error line for a control `name`; created (after the control) if the server left it
 * out, and named in the control's aria-describedby. */
export function errorEl(round, name) {
  const cache = round.errorEls || (round.errorEls = {});
  if (cache[name] && cache[name].isConnected) return cache[name];
  const form = round.form;
  let line = q('.field-error[data-for="' + esc(name) + '"]', form);
  const control = byName(form, name);
  if (!line && control) {
    line = document.createElement('p');
    line.className = 'field-error';
    line.setAttribute('data-for', name);
    control.insertAdjacentElement('afterend', line);
  }
  if (line && control) {
    if (!line.id) line.id = 'err-' + name;
    const d = (control.getAttribute('aria-describedby') || '').split(/\s+/).filter(Boolean);
    if (d.indexOf(line.id) < 0) { d.push(line.id); control.setAttribute('aria-describedby', d.join(' ')); }
  }
  cache[name] = line;
  return line;
}

/** Shows `message` (or nothing) as the error of control `name`, marking the control invalid. */
export function showError(round, name, control, message) {
  const line = errorEl(round, name);
  if (line) line.textContent = message;
  if (control) {
    if (message) control.setAttribute('aria-invalid', 'true');
    else control.removeAttribute('aria-invalid');
    control.classList.toggle('is-invalid', !!message);
  }
}

/* Structure: give every control of a place a wrapper that holds its label, the control and
 * its error, tag wrappers with the field kind (for layout) and with the actions under which
 * they are hidden (data-pp-hide; CSS hides them from the section's data-action). */
function enhancePlace(round, place) {
  const section = place.section;
  const hiddenUnder = round.hiddenUnder;
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
    if (hiddenUnder[c.kind]) w.setAttribute('data-pp-hide', hiddenUnder[c.kind].join(' '));
    if (c.kind !== 'action' && c.kind !== 'bet') place.fields[c.kind].wrapper = w;
  });

  // Containers holding several of our fields (e.g. a fieldset around the hands) hide when all do.
  qa('*', section).forEach(function (node) {
    if (node.hasAttribute('data-pp-kind')) return;
    const inner = qa('input:not([type=hidden]),select,textarea', node);
    if (inner.length < 2) return;
    let hide = null;
    for (const ctl of inner) {
      const w = ctl.closest('[data-pp-kind]');
      const h = w && w.getAttribute('data-pp-hide');
      if (!h) { hide = []; break; }
      const set = h.split(' ');
      hide = hide === null ? set : hide.filter(function (a) { return set.indexOf(a) >= 0; });
    }
    if (hide && hide.length) node.setAttribute('data-pp-hide', hide.join(' '));
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
      !(round.serverErrors[dealt.name])) {
    dealt.wrapper.classList.add('pp-folded');
    const open = document.createElement('button');
    open.type = 'button';
    open.className = 'pp-show-dealt';
    open.textContent = '+ Dealt cards (optional)';
    open.setAttribute('aria-controls', dealt.input.id || '');
    open.setAttribute('data-pp-hide', hiddenUnder.back ? hiddenUnder.back.join(' ') : '');
    dealt.wrapper.insertAdjacentElement('beforebegin', open);
    open.addEventListener('click', function () {
      dealt.wrapper.classList.remove('pp-folded');
      open.remove();
      dealt.input.focus();
    });
  }
}

/** Lays the form out for the script: wrappers, folded dealt cards, error lines, card faces. */
export function enhanceForm(round) {
  round.places.forEach(function (p) { enhancePlace(round, p); });
  round.fields.forEach(function (f) {
    f.input.setAttribute('enterkeyhint', 'next');
    f.input.setAttribute('autocorrect', 'off');
    errorEl(round, f.name);
    f.faces = el('div', 'faces');
    f.faces.setAttribute('aria-hidden', 'true');
    f.input.insertAdjacentElement('afterend', f.faces);
  });
  round.form.classList.add('js');
  const places = round.places;
  const grid = places[0].section.parentElement;
  if (grid !== round.form && places.every(function (p) { return p.section.parentElement === grid; })) grid.classList.add('pp-places');
}

/** Shows each place's action and every field's message and faces, from the last validate(). */
export function renderFields(round) {
  const serverErrors = round.serverErrors;
  round.places.forEach(function (p) {
    p.section.setAttribute('data-action', actionOf(p));
    ['action', 'bet'].forEach(function (k) {
      const c = p[k];
      if (!c || !c.name) return;
      const quiet = (k === 'bet' && actionOf(p) === 'empty') || !problemShown(round, c.name, c);
      showError(round, c.name, c, quiet ? '' : serverErrors[c.name] || '');
    });
  });
  round.fields.forEach(function (f) {
    let msg = '';
    if (isActive(f) && problemShown(round, f.name, f.input)) {
      msg = f.local.slice(0, 2).join('; ');
      if (!msg && !f.quiet) msg = serverErrors[f.name] || round.pinned[f.name] || '';
    }
    showError(round, f.name, f.input, msg);
    if (f.faces) renderFaces(f.faces, isActive(f) ? f.input.value : '');
  });
}
