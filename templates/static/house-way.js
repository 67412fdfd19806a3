/* pusoy-pit: "Set by house way" on the table screen. Without script the button posts the form
 * (step=house_way) and the server sets the dealer's hands from the dealer's 13 dealt cards.
 * With script it asks the server for the house way's set of the dealt cards as typed
 * (GET /api/v1/tables/{code}/house-way?cards=..., which changes nothing), fills the dealer's
 * back, middle and front, and lets the live check save the form as it saves any change.
 *
 * setupHouseWay(screen): screen as table.js builds it.
 */
import { q } from './dom.js';

export function setupHouseWay(screen) {
  const round = screen.round;
  const button = q('button[name="step"][value="house_way"]', round.form);
  const dealer = round.places.find(function (p) { return p.id === 'dealer'; });
  if (!button || !dealer || !dealer.fields.dealt) return;
  const url = button.getAttribute('data-url');
  let busy = false;

  function problem(message) {
    const dealt = dealer.fields.dealt;
    // The dealt cards are folded away while empty: unfold them, the message is about them.
    const unfold = q('.pp-show-dealt', dealer.section);
    if (unfold) unfold.click();
    round.pinned[dealt.name] = message;
    round.touched.add(dealt.name);
    screen.render();
    dealt.input.focus();
  }

  button.addEventListener('click', function (e) {
    e.preventDefault();
    if (busy || !url) return;
    const cards = dealer.fields.dealt.input.value.trim();
    if (!cards) { problem("type the dealer's 13 dealt cards to set them by the house way"); return; }
    busy = true;
    button.disabled = true;
    fetch(url + '?cards=' + encodeURIComponent(cards), {
      credentials: 'same-origin',
      headers: { Accept: 'application/json' }
    }).then(function (res) {
      return res.json().then(function (body) { return { ok: res.ok, body: body }; });
    }).then(function (answer) {
      const body = answer.body || {};
      if (!answer.ok) {
        const fe = body.field_errors || {};
        problem(String(fe.cards || body.error || 'the house way could not be found'));
        return;
      }
      if (dealer.action) dealer.action.value = 'play';
      delete round.pinned[dealer.fields.dealt.name];
      ['back', 'middle', 'front'].forEach(function (kind) {
        const f = dealer.fields[kind];
        if (!f || typeof body[kind] !== 'string') return;
        f.input.value = body[kind];
        screen.changed(f);
      });
    }).catch(function () {
      problem('the house way could not be asked for (no connection?); try again');
    }).then(function () {
      busy = false;
      button.disabled = false;
    });
  });
}
