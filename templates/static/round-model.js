/* pusoy-pit: the round on the dealer's table screen as data. Its places (the seats and the
 * dealer, found in the server's form by data-place and by name), each place's action, bet and
 * card fields; the checks the screen makes before the server does (cards that are not cards,
 * counts, a card in two places, set hands that are not the dealt cards); and the mapping of the
 * form to the live check's request and of its JSON answer back onto the round.
 *
 * A field is { input, name, kind, count, place, quiet, parsed, local, blocking }; a place is
 * { id, section, title, lower, action, bet, fields: { dealt, back, middle, front } }. Which
 * fields an action hides is the round's `hiddenUnder` (the banking game's by default): a
 * screen for another game passes its own to readRound.
 */
import { PREFIX, parseText, tokenize } from './cards.js';
import { duplicates } from './duplicates.js';
import { q, qa, esc } from './dom.js';

export const CARD_KINDS = ['dealt', 'back', 'middle', 'front'];
export const SET_KINDS = ['back', 'middle', 'front'];
/** Under which actions a field kind is hidden (see table.css), at a banking table. */
export const HIDDEN_UNDER = {
  bet: ['empty'],
  dealt: ['empty', 'surrender'],
  back: ['empty', 'surrender', 'royalty'],
  middle: ['empty', 'surrender', 'royalty'],
  front: ['empty', 'surrender', 'royalty']
};

/** The same at a points-game table: no bets; a natural is shown from the 13 dealt and sets no
 * hands (docs/rules.md §8.3). */
export const POINTS_HIDDEN_UNDER = {
  dealt: ['empty', 'surrender'],
  back: ['empty', 'surrender', 'natural'],
  middle: ['empty', 'surrender', 'natural'],
  front: ['empty', 'surrender', 'natural']
};

/** 'seat3' -> 'seat 3' (how messages name a place). */
export function lowerPlaceName(id) {
  const m = /^seat(\d+)$/.exec(id);
  return m ? 'seat ' + m[1] : id;
}

/** The control named `name` in `form`. */
export function byName(form, name) { return q('[name="' + esc(name) + '"]', form); }

/** The round as the server rendered it into `form`: { form, places, fields (card fields in
 * document order), fieldByInput, hiddenUnder, serverErrors (name -> the server's message) }. */
export function readRound(form, hiddenUnder) {
  const hidden = hiddenUnder || HIDDEN_UNDER;
  const places = qa('.place[data-place]', form).map(function (section) {
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
      hiddenUnder: hidden,
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
  const fields = qa('input.cards', form).map(function (input) {
    for (const p of places) for (const k in p.fields) if (p.fields[k].input === input) return p.fields[k];
    return null;
  }).filter(Boolean);
  return {
    form: form,
    places: places,
    fields: fields,
    fieldByInput: new Map(fields.map(function (f) { return [f.input, f]; })),
    hiddenUnder: hidden,
    serverErrors: readServerErrors(form),
    // The controls the dealer has touched (by name), and whether every problem is shown (the
    // page answers a Preview, or Preview / Confirm was pressed).
    touched: new Set(),
    // Problems the screen found itself (the house way's), kept until their field changes:
    // a check's answer does not know them.
    pinned: {},
    showAll: form.getAttribute('data-previewed') === 'yes'
  };
}

/** Whether control `name`'s problem is shown: once touched, once it holds something, or after
 * Preview / Confirm; not on the seats nobody has entered yet. */
export function problemShown(round, name, control) {
  return round.showAll || round.touched.has(name) || !!(control && String(control.value || '').trim() !== '');
}

/** The messages the server rendered next to the fields (name -> message). */
export function readServerErrors(form) {
  const errors = {};
  qa('.field-error[data-for]', form).forEach(function (el) {
    const t = el.textContent.trim();
    if (t) errors[el.getAttribute('data-for')] = t;
  });
  return errors;
}

/** A place's action: 'empty' for an empty seat, 'play' where there is no choice. */
export function actionOf(place) {
  if (!place.action) return 'play';
  const v = place.action.value;
  return v === '' ? 'empty' : v;
}

/** Whether a control kind ('bet', 'back', ...) is in play under its place's action. */
export function kindActive(place, kind) {
  const hidden = place.hiddenUnder[kind];
  return !hidden || hidden.indexOf(actionOf(place)) < 0;
}
export function isActive(field) { return kindActive(field.place, field.kind); }
/** Whether the place sets three hands under its action (else at most its dealt cards count). */
export function setsHands(place) {
  return SET_KINDS.every(function (k) { return place.fields[k] && kindActive(place, k); });
}

export function fieldLabel(field) { return field.place.title + ' \u00b7 ' + field.kind; }
export function fieldWhere(field) { return field.place.lower + ' ' + field.kind; }
export function tokenCount(field) { return tokenize(field.input.value).length; }

function validCards(f) { return f.parsed.cards.filter(Boolean); }
function isComplete(f) { return f.parsed.errors.length === 0 && f.parsed.tokens.length === f.count; }
function listCards(cards) { return cards.join(', '); }

/** The screen's own checks: fills each field's `parsed`, `local` (messages, most important
 * first) and `blocking` (a problem the server would refuse the cards for). */
export function validate(round) {
  const fields = round.fields;
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

  // Within a place that sets its hands: the 13 set cards must be the dealt cards.
  round.places.filter(setsHands).forEach(function (p) {
    const dealt = p.fields.dealt;
    const hands = SET_KINDS.map(function (k) { return p.fields[k]; });
    if (!dealt || !isComplete(dealt) || !hands.every(isComplete)) return;
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

/** Whether a field in play has a problem the server would refuse its cards for. */
export function hasBlockingErrors(round) {
  return round.fields.some(function (f) { return isActive(f) && f.blocking; });
}

/** Writes a field's cards canonically ('as 10h' -> 'As Th') when every token is a card. */
export function normalise(field) {
  const p = parseText(field.input.value);
  if (p.tokens.length && !p.errors.length) {
    const text = p.cards.join(' ');
    if (text !== field.input.value) field.input.value = text;
  }
}

/** "Same players and bets as last round" ('seat1=500;seat3=200'): those seats play (unless
 * already given an action) with those bets. */
export function applySeats(round, spec) {
  (spec || '').split(';').forEach(function (pair) {
    const [seat, bet] = pair.split('=');
    const place = round.places.find(function (p) { return p.id === seat; });
    if (!place || !place.action) return;
    if (place.action.value === '') place.action.value = 'play';
    if (place.bet) { place.bet.value = bet; delete round.serverErrors[place.bet.name]; }
  });
}

/** The live check's request body: every field as typed, valid or not (the server stores it
 * so and checks it separately), with step=check. */
export function checkBody(form) {
  const fd = new FormData(form);
  fd.set('step', 'check');
  const body = new URLSearchParams();
  fd.forEach(function (v, k) { if (typeof v === 'string') body.append(k, v); });
  return body;
}

/**
 * The live check's JSON answer, read defensively: { revision, draftKey, confirmQuestion,
 * fieldErrors (name -> message, for fields `known(name)` says are on the screen), stray
 * (messages for anything else), notes (place id -> note), previewHtml, canConfirm, stored
 * (what the server says it stored), problems (how many fields have one) }.
 */
export function readAnswer(data, known) {
  const fe = data.field_errors && typeof data.field_errors === 'object' ? data.field_errors : {};
  const fieldErrors = {};
  const stray = [];
  Object.keys(fe).forEach(function (name) {
    if (!fe[name]) return;
    if (known(name)) fieldErrors[name] = String(fe[name]);
    else stray.push(String(fe[name]));
  });
  return {
    revision: data.revision != null ? String(data.revision) : null,
    draftKey: typeof data.draft_key === 'string' ? data.draft_key : null,
    confirmQuestion: data.confirm_question ? String(data.confirm_question) : '',
    fieldErrors: fieldErrors,
    stray: stray,
    notes: data.place_notes && typeof data.place_notes === 'object' ? data.place_notes : {},
    previewHtml: typeof data.preview_html === 'string' ? data.preview_html : null,
    canConfirm: !!data.can_confirm,
    stored: typeof data.stored === 'string' ? data.stored : 'Saved',
    problems: Object.keys(fe).length
  };
}

/** Puts an answer's revision, draft key, confirm question and field errors onto the form. */
export function applyAnswer(round, answer) {
  const form = round.form;
  const revision = byName(form, 'revision');
  const draftKey = byName(form, 'draft_key');
  if (revision && answer.revision != null) revision.value = answer.revision;
  if (draftKey && answer.draftKey != null) draftKey.value = answer.draftKey;
  if (answer.confirmQuestion) form.setAttribute('data-confirm-question', answer.confirmQuestion);
  else form.removeAttribute('data-confirm-question');
  round.serverErrors = Object.assign({}, answer.fieldErrors);
}

/** Whether `name` is shown on the form (a control or its error line). */
export function knownOnForm(form, name) {
  return !!(byName(form, name) || q('.field-error[data-for="' + esc(name) + '"]', form));
}
