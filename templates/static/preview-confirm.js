/* pusoy-pit: the preview and Confirm on the table screen. The action bar (the save status,
 * the previewed round's house result, Preview and Confirm) stays in view; the preview the
 * live check answers replaces the one shown (greyed while the cards on screen have a
 * mistake), with each place's note (a foul explained) beside its hands. Confirm is a
 * full-page POST, sent once, only when the server said the stored round can be confirmed and
 * nothing is waiting to be saved; where the table says so it asks once first
 * ("Confirm 3 seats, house PHP +800.00?").
 *
 * createPreviewConfirm(round, saver) -> { status, show(answer), stale(), update() }; `saver()`
 * gives the live saving (live-save.js) once it exists.
 */
import { q, qa, esc, el } from './dom.js';
import { normalise } from './round-model.js';

export function createPreviewConfirm(round, saver) {
  const form = round.form;
  const preview = document.getElementById('preview');
  const previewBtn = q('button[name="step"][value="preview"]', form);
  let confirmBtn = q('button[name="step"][value="confirm"]', form);
  let canConfirm = !!confirmBtn;     // the server renders Confirm only with a valid preview
  let submitting = false;
  let actionBar = null;
  let barNet = null;                 // the house's result of the previewed round, in the bar
  let status = null;

  (function setupActionBar() {
    const anchor = previewBtn || confirmBtn;
    if (!anchor) return;
    const parent = anchor.parentElement;
    if (parent !== form && Array.prototype.every.call(parent.children, function (c) { return c.matches('button,p,span'); })) {
      actionBar = parent;
    } else {
      actionBar = el('div');
      parent.insertBefore(actionBar, anchor);
      qa('button[name="step"]', form).forEach(function (b) { if (b.parentElement === parent) actionBar.appendChild(b); });
    }
    actionBar.classList.add('action-bar');
    status = q('.save-status', form) || el('p', 'save-status');
    status.setAttribute('role', 'status');
    status.setAttribute('aria-live', 'polite');
    actionBar.insertBefore(status, actionBar.firstChild);
    barNet = el('p', 'bar-net');
    barNet.setAttribute('aria-live', 'polite');
    status.insertAdjacentElement('afterend', barNet);
    showNet();
  })();

  // The previewed round's house result next to the buttons, so it is seen without scrolling.
  function showNet() {
    if (!barNet) return;
    const net = preview && preview.querySelector('.dealer-net strong');
    barNet.textContent = net ? 'House this round: ' + net.textContent.trim() : '';
  }

  // Notes next to each place's hands: the server's, else the preview's foul explanation.
  function showNotes(notes) {
    round.places.forEach(function (p) {
      const note = q('.place-note[data-for="' + esc(p.id) + '"]', form);
      const row = preview && preview.querySelector('tr[data-place="' + esc(p.lower) + '"] .foul-reason');
      const text = notes[p.id] ? String(notes[p.id]) : row ? row.textContent.trim() : '';
      if (note) note.textContent = text;
      p.section.classList.toggle('is-fouled', /^foul/i.test(text));
    });
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

  function update() {
    if (!confirmBtn) return;
    confirmBtn.classList.add('confirm');
    confirmBtn.disabled = submitting || saver().pending() || !canConfirm;
  }

  /** The live check's answer (round-model.js readAnswer): its preview, notes, and whether
   * the stored round can be confirmed. */
  function show(answer) {
    if (preview && answer.previewHtml != null) preview.innerHTML = answer.previewHtml;
    if (preview) preview.classList.remove('stale');
    showNotes(answer.notes);
    showNet();
    canConfirm = answer.canConfirm;
    if (canConfirm) ensureConfirm();
  }

  /** The preview shown is of the cards before a mistake: grey it out until fixed. */
  function stale() {
    if (preview) preview.classList.add('stale');
    if (barNet) barNet.textContent = '';
  }

  // Confirm: full-page POST, once. Disable after the submit event so the button's
  // name/value still go into the form data set.
  let lastSubmitter = null;
  form.addEventListener('click', function (e) {
    const b = e.target.closest('button[type="submit"],button:not([type])');
    if (b) lastSubmitter = b;
  });
  form.addEventListener('submit', function (e) {
    const s = e.submitter || lastSubmitter;
    saver().cancel();
    if (s && s.name === 'step' && s.value === 'confirm') {
      if (submitting || saver().pending() || !canConfirm) { e.preventDefault(); update(); return; }
      // The table asks once ("Confirm 3 seats, house PHP +800.00?") when its settings say so.
      const question = form.getAttribute('data-confirm-question');
      if (question && !window.confirm(question)) { e.preventDefault(); return; }
      submitting = true;
      saver().hold(true);
      saver().status('Confirming\u2026', 'busy');
      setTimeout(update, 0);
    }
    round.fields.forEach(normalise);
  });

  // Back/forward cache: the page can come back with Confirm still marked as submitting.
  window.addEventListener('pageshow', function (e) {
    if (e.persisted) { submitting = false; saver().hold(false); update(); }
  });

  showNotes({});
  return { status: status, show: show, stale: stale, update: update };
}
