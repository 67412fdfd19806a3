/* pusoy-pit: live saving on the table screen. A change schedules a check (250 ms after the
 * last one) that POSTs the whole form as typed to the table's check URL; the server stores it,
 * valid or not, and answers every problem at once. The status line says exactly what is
 * stored ("Saved as typed (revision 4), with 2 problems to fix"), or why nothing was.
 * The form's data-saving is "yes" while a change is on its way (tests and people wait for "no").
 *
 * createLiveSave(form, status, hooks) -> { schedule, pending, signedOut, cancel, hold, status,
 * extra, notify };
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

  function schedule() {
    dirty = true;
    notify();
    clearTimeout(timer);
    if (!url || signedOut || held) return;
    timer = setTimeout(run, 250);
  }

  async function run() {
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
      const said = hooks.answered(data);
      // Exactly what the server stored: as typed, with how many problems, or ready to confirm.
      if (dirty || again) setStatus(said.stored + ' \u2014 saving the latest changes\u2026', 'busy');
      else setStatus(said.stored, said.problems ? 'warn' : 'ok');
    } else {
      dirty = true;
      if (outcome === 'auth') { signedOut = true; setStatus('Signed out \u2014 reload the page', 'error'); }
      else if (outcome === 'conflict') { signedOut = true; setStatus('Changed on another screen \u2014 reload the page', 'error'); }
      else if (outcome === 'off-shift') { signedOut = true; setStatus('Not signed on at this table \u2014 sign on from the tables page', 'error'); }
      else if (outcome === 'refused') setStatus('Not saved \u2014 the server refused the check (' + code + ')', 'error');
      else setStatus('Not saved \u2014 check connection', 'error');
    }
    notify();
    if (again && !signedOut) { again = false; schedule(); }
  }

  // Back online: send what is waiting.
  window.addEventListener('online', function () { if (dirty && !signedOut) schedule(); });

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
    notify: notify
  };
}
