/* pusoy-pit: live saving on the table screen. A change schedules a check (250 ms after the
 * last one) that POSTs the whole form as typed to the table's check URL; the server stores it,
 * valid or not, and answers every problem at once. The status line says exactly what is
 * stored ("Saved as typed (revision 4), with 2 problems to fix"), or why nothing was.
 * The form's data-saving is "yes" while a change is on its way (tests and people wait for "no").
 *
 * Nothing typed is lost: every change is kept in the tablet's localStorage until the server
 * acknowledges it (and put back on the form when the page opens again at the same draft and
 * revision); leaving the page (pagehide, or the tab hidden) sends what waits at once with a
 * keepalive request; when the server does not answer, the check is tried again by itself
 * (1 s, 2 s, 4 s ... up to 30 s); when the session has ended, the status says so with a link
 * that signs in and comes back to this table.
 *
 * createLiveSave(form, status, hooks) -> { schedule, pending, signedOut, cancel, hold, status,
 * extra, notify, restore };
 * hooks: beforeSend() (just before a request), answered(data) (a JSON answer, 200 or 422),
 * stateChanged() (pending() or signedOut() may have changed).
 */
import { q, el } from './dom.js';
import { byName, checkBody } from './round-model.js';

export function createLiveSave(form, status, hooks) {
  const url = form.getAttribute('data-check-url');
  const csrf = byName(form, 'csrf_token');
  let dirty = false;                 // changed since the last successful check was sent
  let inflight = false;
  let again = false;                 // a change arrived while a check was in flight
  let held = false;                  // the form is being submitted: send nothing more
  let signedOut = false;
  let seq = 0;
  let timer = 0;
  let retryIn = 0;                   // ms before the next try after no answer; 0: none waiting
  const screenPath = (form.getAttribute('action') || '').replace(/\/round$/, '');
  const keptKey = 'pusoy-pit:unsaved:' + screenPath;

  // What is on the form, field by field, to keep until the server has it.
  function typed() {
    const fields = {};
    new FormData(form).forEach(function (v, k) {
      if (typeof v === 'string' && k !== 'csrf_token' && k !== 'draft_key' && k !== 'revision') fields[k] = v;
    });
    return fields;
  }
  function draftAt() {
    const key = byName(form, 'draft_key');
    const revision = byName(form, 'revision');
    return { draftKey: key ? key.value : '', revision: revision ? revision.value : '' };
  }
  function keep() {
    if (!url) return;                // a form that is not saved as typed keeps nothing
    try {
      const at = draftAt();
      localStorage.setItem(keptKey, JSON.stringify({ draftKey: at.draftKey, revision: at.revision, fields: typed() }));
    } catch (e) { /* storage full or refused: the server copy is all there is */ }
  }
  function forget() {
    try { localStorage.removeItem(keptKey); } catch (e) { /* nothing kept */ }
  }

  function setStatus(text, state) {
    if (!status) return;
    status.textContent = text;
    status.setAttribute('data-state', state || '');
  }

  // A line under the status for messages the answer had no field for.
  function extra(text) {
    if (!status) return;
    let line = q('.save-status-extra', status.parentElement);
    if (!line) { line = el('p', 'save-status-extra'); status.insertAdjacentElement('afterend', line); }
    line.textContent = text;
  }

  function notify() {
    form.setAttribute('data-saving', dirty || inflight ? 'yes' : 'no');
    hooks.stateChanged();
  }

  // Signed out: the words, and a link that signs in and comes back here.
  function showSignedOut() {
    setStatus('Signed out: sign in to go on. What you typed is kept on this tablet. ', 'error');
    if (!status) return;
    const link = el('a', 'sign-in-again', 'Sign in');
    link.href = '/login?next=' + encodeURIComponent(screenPath);
    status.appendChild(link);
  }

  function schedule() {
    dirty = true;
    keep();
    notify();
    clearTimeout(timer);
    retryIn = 0;
    if (!url || signedOut || held) return;
    timer = setTimeout(run, 250);
  }

  // No answer: try again by itself, waiting longer each time.
  function retry() {
    retryIn = retryIn ? Math.min(retryIn * 2, 30000) : 1000;
    setStatus('Not saved \u2014 no answer from the server; trying again in ' + Math.round(retryIn / 1000) + ' s', 'error');
    clearTimeout(timer);
    const wait = retryIn;
    timer = setTimeout(function () { run(false, wait); }, wait);
  }

  // Leaving the page (or the tab hidden): what waits goes now, and survives the page.
  function flush() {
    if (!url || signedOut || held || !dirty || inflight) return;
    clearTimeout(timer);
    run(true);
  }

  async function run(leaving, waited) {
    if (inflight) { again = true; return; }
    hooks.beforeSend();
    const my = ++seq;
    inflight = true;
    dirty = false;
    notify();
    setStatus('Saving\u2026', 'busy');
    const ctrl = typeof AbortController === 'function' ? new AbortController() : null;
    const timeout = setTimeout(function () { if (ctrl) ctrl.abort(); }, 15000);
    let outcome = 'network';
    let data = null;
    let code = 0;
    try {
      const res = await fetch(url, {
        method: 'POST',
        body: checkBody(form),
        headers: { 'X-CSRF-Token': csrf ? csrf.value : '', 'Accept': 'application/json' },
        credentials: 'same-origin',
        keepalive: !!leaving,
        signal: ctrl ? ctrl.signal : undefined
      });
      code = res.status;
      if (code === 401) outcome = 'signed-out';
      else if (code === 403) outcome = 'auth';
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
      retryIn = 0;
      const said = hooks.answered(data);
      // Exactly what the server stored: as typed, with how many problems, or ready to confirm.
      if (dirty || again) { keep(); setStatus(said.stored + ' \u2014 saving the latest changes\u2026', 'busy'); }
      else { forget(); setStatus(said.stored, said.problems ? 'warn' : 'ok'); }
    } else {
      dirty = true;
      if (outcome === 'signed-out') { signedOut = true; showSignedOut(); }
      else if (outcome === 'auth') { signedOut = true; setStatus('Signed out \u2014 reload the page', 'error'); }
      else if (outcome === 'conflict') { signedOut = true; setStatus('Changed on another screen \u2014 reload the page', 'error'); }
      else if (outcome === 'off-shift') { signedOut = true; setStatus('Not signed on at this table \u2014 sign on from the tables page', 'error'); }
      else if (outcome === 'refused') setStatus('Not saved \u2014 the server refused the check (' + code + ')', 'error');
      else if (!held) { retryIn = waited || 0; retry(); }
    }
    notify();
    if (again && !signedOut && outcome !== 'network') { again = false; schedule(); }
  }

  // Back online: send what is waiting.
  window.addEventListener('online', function () { if (dirty && !signedOut) schedule(); });
  window.addEventListener('pagehide', flush);
  document.addEventListener('visibilitychange', function () {
    if (document.visibilityState === 'hidden') flush();
  });

  /** Puts back what was typed here and not acknowledged, if the page opened at the same draft
   * and revision it was typed on; true if it did (the caller checks and saves it). */
  function restore() {
    let kept = null;
    try { kept = JSON.parse(localStorage.getItem(keptKey) || 'null'); } catch (e) { kept = null; }
    const at = draftAt();
    if (!kept || !kept.fields || kept.draftKey !== at.draftKey || kept.revision !== at.revision) {
      forget();
      return false;
    }
    let changed = false;
    Object.keys(kept.fields).forEach(function (name) {
      const input = byName(form, name);
      if (input && input.value !== kept.fields[name]) { input.value = kept.fields[name]; changed = true; }
    });
    if (!changed) forget();
    return changed;
  }

  return {
    schedule: schedule,
    /** A change not yet stored (waiting or on its way). */
    pending: function () { return dirty || inflight; },
    signedOut: function () { return signedOut; },
    /** Drops a check that is waiting to be sent (the form is being submitted). */
    cancel: function () { clearTimeout(timer); },
    /** hold(true) while the round is being confirmed: nothing more is sent; hold(false) after. */
    hold: function (on) { held = on; },
    status: setStatus,
    extra: extra,
    notify: notify,
    restore: restore
  };
}
