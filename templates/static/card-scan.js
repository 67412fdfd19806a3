/* pusoy-pit: "Scan card" on the table screen's seat-a-player form (Rated players). Where the
 * browser has a barcode detector and a camera (BarcodeDetector, navigator.mediaDevices.
 * getUserMedia), a button beside the card number opens the rear camera in a small overlay; the
 * first QR code or barcode read as a card number fills the field and closes it. Cancel closes it
 * and stops the camera. Without them there is no button: the number is typed, as before.
 *
 * cardFromScan(raw): the card number a code holds, as the server stores it, or null.
 * setupCardScan(doc, win): wires the button, if the browser can scan.
 */

/** The codes a player's card carries. */
export const FORMATS = ['code_128', 'code_39', 'ean_13', 'qr_code'];

/** How long the camera looks between two reads, in milliseconds. */
const EVERY_MS = 200;

/** The card number in a code's raw value (spaces and dashes dropped, in capitals, 4 to 20
 * letters and digits, as a card number is stored), or null when it holds anything else. */
export function cardFromScan(raw) {
  if (typeof raw !== 'string' || raw.length > 64) return null;
  const card = raw.replace(/[\s-]/g, '').toUpperCase();
  return /^[A-Z0-9]{4,20}$/.test(card) ? card : null;
}

/** Whether this browser can read a code with its camera. */
export function canScan(win) {
  const media = win.navigator && win.navigator.mediaDevices;
  return typeof win.BarcodeDetector === 'function' && !!media && typeof media.getUserMedia === 'function';
}

export function setupCardScan(doc, win) {
  const form = doc.getElementById('rate-form');
  const input = form && form.querySelector('input[name="card"]');
  if (!input || !canScan(win)) return;
  const button = doc.createElement('button');
  button.type = 'button';
  button.className = 'secondary scan-card';
  button.id = 'scan-card';
  button.textContent = 'Scan card';
  input.closest('label').after(button);
  button.addEventListener('click', function () { open(doc, win, input, button); });
}

function open(doc, win, input, button) {
  const overlay = doc.createElement('div');
  overlay.className = 'scan-overlay';
  overlay.id = 'scan-overlay';
  const box = doc.createElement('div');
  box.className = 'scan-box';
  box.setAttribute('role', 'dialog');
  box.setAttribute('aria-modal', 'true');
  box.setAttribute('aria-labelledby', 'scan-title');
  const title = doc.createElement('h2');
  title.id = 'scan-title';
  title.textContent = 'Scan the player\u2019s card';
  const video = doc.createElement('video');
  video.muted = true;
  video.autoplay = true;
  video.setAttribute('playsinline', '');
  const status = doc.createElement('p');
  status.className = 'scan-status';
  status.setAttribute('role', 'status');
  status.textContent = 'Starting the camera\u2026';
  const cancel = doc.createElement('button');
  cancel.type = 'button';
  cancel.className = 'secondary';
  cancel.textContent = 'Cancel';
  box.append(title, video, status, cancel);
  overlay.append(box);
  doc.body.append(overlay);
  cancel.focus();

  let stream = null;
  let timer = null;
  let closed = false;
  function close() {
    closed = true;
    if (timer !== null) win.clearTimeout(timer);
    if (stream) stream.getTracks().forEach(function (t) { t.stop(); });
    video.srcObject = null;
    overlay.remove();
    doc.removeEventListener('keydown', onKey);
    button.focus();
  }
  function onKey(e) { if (e.key === 'Escape') close(); }
  cancel.addEventListener('click', close);
  doc.addEventListener('keydown', onKey);

  let detector;
  try {
    detector = new win.BarcodeDetector({ formats: FORMATS });
  } catch (err) {
    status.textContent = 'This browser cannot read cards: type the number.';
    return;
  }
  win.navigator.mediaDevices.getUserMedia({ video: { facingMode: { ideal: 'environment' } }, audio: false })
    .then(function (got) {
      if (closed) { got.getTracks().forEach(function (t) { t.stop(); }); return; }
      stream = got;
      video.srcObject = got;
      const playing = video.play();
      if (playing && playing.catch) playing.catch(function () {});
      status.textContent = 'Hold the card\u2019s code in front of the camera.';
      look();
    })
    .catch(function () {
      status.textContent = 'The camera could not be opened: type the number.';
    });

  function look() {
    if (closed) return;
    detector.detect(video).then(function (codes) {
      if (closed) return;
      for (const code of codes) {
        const card = cardFromScan(code.rawValue);
        if (card) {
          input.value = card;
          close();
          input.dispatchEvent(new win.Event('input', { bubbles: true }));
          input.focus();
          return;
        }
        status.textContent = 'That code is not a card number: try the player\u2019s card.';
      }
      timer = win.setTimeout(look, EVERY_MS);
    }, function () {
      if (!closed) timer = win.setTimeout(look, EVERY_MS);
    });
  }
}
