/* pusoy-pit: the dealer's table screen, progressive enhancement.
 *
 * The server-rendered form works on its own (Preview / Confirm are full POSTs). The script
 * adds local card checks, card faces, show/hide by action, a 52-card picker, a debounced live
 * check that saves the form as typed, "same players and bets" and Confirm safety. This file
 * only wires the modules beside it, each of which owns one concern:
 *
 *   round-model.js      the round as data: places, fields, local checks, form <-> check JSON
 *   round-view.js       the form's layout, each field's message and card faces
 *   picker.js           the 52-card picker
 *   live-save.js        the live check that stores the draft, and the save status
 *   preview-confirm.js  the action bar, the preview and notes, Confirm
 *   house-way.js        "Set by house way": the dealer's hands from the dealer's dealt cards
 *   card-scan.js        "Scan card" on the Rated players' seat form (camera and barcode reader)
 *   cards.js, duplicates.js, card-faces.js, roving.js, dom.js   what those use
 *
 * A feature of its own (a house-way button, another game's places) goes in a module of its
 * own exporting a setup function that takes the `screen` object below, called at the end of
 * the start-up. No framework, no inline styles (CSP: script-src/style-src 'self').
 */
import { q, el } from './dom.js';
import {
  readRound, validate, normalise, setsHands, isActive, hasBlockingErrors, applySeats,
  readAnswer, applyAnswer, knownOnForm, POINTS_HIDDEN_UNDER
} from './round-model.js';
import { enhanceForm, renderFields } from './round-view.js';
import { createPicker } from './picker.js';
import { createLiveSave } from './live-save.js';
import { createPreviewConfirm } from './preview-confirm.js';
import { setupHouseWay } from './house-way.js';
import { setupCardScan } from './card-scan.js';

// Rated players' seat form: a card scanned by the camera, where the browser can (its own form,
// not the round's).
setupCardScan(document, window);

const form = document.getElementById('round-form');
if (form && typeof window.fetch === 'function' && typeof window.FormData === 'function') start(form);

function start(form) {
  const round = readRound(form, form.getAttribute('data-game') === 'points' ? POINTS_HIDDEN_UNDER : undefined);
  if (!round.places.length) return;

  /* What the modules (and any module added on top) act through. */
  const screen = {
    round: round,
    /** The screen's checks and everything they show, the picker included. */
    refresh: function () { validate(round); render(); },
    render: render,
    validate: function () { validate(round); },
    /** A field's text changed (typed, tapped or filled by a module): check, show, save. */
    changed: changed,
    /** Save the form soon (after a change to anything but a card field). */
    save: function () { saver.schedule(); },
    picker: null,
    saver: null,
    confirm: null
  };

  function render() { renderFields(round); screen.picker.render(); }

  // The controls changed since the last check was sent: that check's answer about them is
  // already out of date, and is not shown.
  let changedSinceSent = new Set();
  function touch(name) {
    round.touched.add(name);
    changedSinceSent.add(name);
  }

  function changed(f) {
    if (f) { delete round.serverErrors[f.name]; delete round.pinned[f.name]; touch(f.name); }
    screen.refresh();
    saver.schedule();
  }

  enhanceForm(round);
  screen.picker = createPicker(round, document.getElementById('picker'), screen);
  const confirm = screen.confirm = createPreviewConfirm(round, function () { return saver; });
  const saver = screen.saver = createLiveSave(form, confirm.status, {
    beforeSend: function () {
      changedSinceSent = new Set();
      validate(round);
      if (hasBlockingErrors(round)) confirm.stale();
    },
    answered: function (data) {
      const answer = readAnswer(data, function (name) { return knownOnForm(form, name); });
      changedSinceSent.forEach(function (name) { delete answer.fieldErrors[name]; });
      applyAnswer(round, answer);
      confirm.show(answer);
      render();
      if (answer.stray.length) saver.extra(answer.stray.join('; '));
      return answer;
    },
    stateChanged: function () { confirm.update(); }
  });

  form.addEventListener('input', function (e) {
    const f = round.fieldByInput.get(e.target);
    if (f) { f.quiet = true; changed(f); return; }
    if (e.target.name && e.target.name !== 'csrf_token') {
      touch(e.target.name);
      delete round.serverErrors[e.target.name];
      screen.refresh();
      saver.schedule();
    }
  });

  form.addEventListener('change', function (e) {
    const t = e.target;
    if (t.tagName === 'SELECT' && /_action$/.test(t.name)) {
      touch(t.name);
      delete round.serverErrors[t.name];
      screen.refresh();
      // The picker goes to the first empty hand in table order unless one is being filled.
      screen.picker.retarget();
      screen.refresh();
      saver.schedule();
    }
  });

  form.addEventListener('focusin', function (e) {
    const f = round.fieldByInput.get(e.target);
    if (f) { screen.picker.setTarget(f); screen.picker.render(); }
  });

  form.addEventListener('focusout', function (e) {
    const f = round.fieldByInput.get(e.target);
    if (!f) return;
    const before = f.input.value;
    round.touched.add(f.name);
    normalise(f);
    f.quiet = false;
    screen.refresh();
    if (f.input.value !== before) saver.schedule();
  });

  form.addEventListener('keydown', function (e) {
    const f = round.fieldByInput.get(e.target);
    if (!f || e.key !== 'Enter' || e.isComposing) return;
    e.preventDefault();
    // The 13 dealt cards are optional when playing: Enter goes from hand to hand past them.
    const visible = round.fields.filter(function (g) {
      return isActive(g) && (g === f || g.kind !== 'dealt' || !setsHands(g.place) || g.input.value.trim() !== '');
    });
    const next = visible[visible.indexOf(f) + 1];
    if (next) next.input.focus();
    else { normalise(f); f.input.blur(); }
  });

  // Preview or Confirm pressed: every problem is shown.
  form.addEventListener('submit', function () { round.showAll = true; render(); });

  // A player leaves: one tap empties the seat (its hands and bet no longer count).
  round.places.forEach(function (p) {
    if (!p.action || !q('option[value=""]', p.action)) return;
    const heading = q('h1,h2,h3,h4', p.section);
    const leave = el('button', 'leave-seat secondary', 'Seat empty');
    leave.type = 'button';
    leave.setAttribute('aria-label', p.title + ': the player left, seat empty');
    (heading || p.section).appendChild(leave);
    leave.addEventListener('click', function () {
      p.action.value = '';
      touch(p.action.name);
      delete round.serverErrors[p.action.name];
      screen.refresh();
      screen.picker.retarget();
      screen.refresh();
      saver.schedule();
    });
  });

  // "Same players and bets as last round": one tap puts the last round's seats in play with
  // their bets (data-seats="seat1=500;seat3=200"), then the picker goes to the first hand.
  const sameAgain = q('button.same-again', form);
  if (sameAgain) {
    sameAgain.hidden = false;
    sameAgain.addEventListener('click', function () {
      applySeats(round, sameAgain.getAttribute('data-seats'));
      screen.refresh();
      screen.picker.setTarget(screen.picker.defaultTarget());
      screen.refresh();
      saver.schedule();
    });
  }

  // What was typed here and never reached the server (signed out, no connection, the page
  // left) comes back, and is saved.
  const restored = saver.restore();
  screen.picker.build();
  validate(round);
  screen.picker.setTarget(screen.picker.defaultTarget());
  render();
  setupHouseWay(screen);
  saver.notify();
  if (restored) saver.schedule();
}
