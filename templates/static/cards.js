/* pusoy-pit: card text as the dealer types it, parsed like the server (docs/rules.md §2.2): ranks
 * 2-9, T (or 10), J, Q, K, A; suits c d h s or their symbols. An ES module: table.js imports
 * it, and tests/js/cards.test.mjs tests it under node's test runner.
 */

export const RANKS = '23456789TJQKA';
export const SUITS = { c: 'c', d: 'd', h: 'h', s: 's', '\u2663': 'c', '\u2666': 'd', '\u2665': 'h', '\u2660': 's' };
export const SUIT_SYMBOL = { s: '\u2660', h: '\u2665', d: '\u2666', c: '\u2663' };
export const SUIT_NAME = { s: 'spades', h: 'hearts', d: 'diamonds', c: 'clubs' };
export const RANK_NAME = { A: 'Ace', K: 'King', Q: 'Queen', J: 'Jack', T: '10' };
export const GLUED = /^(?:(?:10|[2-9tjqka])[cdhs\u2660\u2663\u2665\u2666]){2,}$/i;
export const PREFIX = /^(?:10?|[2-9tjqka])$/i; // what a token looks like half-typed

const ONE_CARD = /(?:10|[2-9tjqka])[cdhs\u2660\u2663\u2665\u2666]/gi;

/** A field's tokens: split on spaces and commas, and cards typed together (`AsKs`) apart, as
 * the server reads them (docs/rules.md §2.2). A run of cards ending in a half-typed one
 * (`AsK`) splits too, so the card being typed is a token of its own. */
export function tokenize(text) {
  return text.split(/[\s,]+/).filter(Boolean).flatMap(function (token) {
    const cards = token.match(ONE_CARD) || [];
    const whole = cards.join('');
    if (cards.length === 0 || !token.startsWith(whole)) return [token];
    const rest = token.slice(whole.length);
    if (rest === '') return cards.length > 1 ? cards : [token];
    return PREFIX.test(rest) ? cards.concat([rest]) : [token];
  });
}

/** One token -> { card } or { hint } (hint explains why it is not a card). */
export function parseToken(token) {
  // Some tablet keyboards append U+FE0F (emoji presentation) to suit symbols.
  const chars = Array.from(token.replace(/\uFE0F/g, ''));
  if (chars.length === 0) return { hint: 'empty?' };
  const last = chars[chars.length - 1];
  const suit = SUITS[last.toLowerCase()];
  if (chars.length === 1) return { hint: suit ? 'no rank?' : 'no suit?' };
  const rankText = chars.slice(0, -1).join('');
  let rank = rankText.toUpperCase();
  if (rank === '10') rank = 'T';
  if (rank.length !== 1 || RANKS.indexOf(rank) < 0) {
    if (GLUED.test(token)) return { hint: 'missing a space?' };
    // No rank is longer than "10": a word, not a misspelt card.
    if (Array.from(rankText).length > 2) return { hint: 'a card is a rank then a suit, like Ah or 10s' };
    return { hint: 'rank ' + rankText + '?' };
  }
  if (!suit) return { hint: 'suit ' + last + '?' };
  return { card: rank + suit };
}

/** Whole field text -> tokens, parsed cards (null where bad), errors. */
export function parseText(text) {
  const tokens = tokenize(text);
  const cards = [];
  const errors = [];
  tokens.forEach(function (tok, i) {
    const r = parseToken(tok);
    cards.push(r.card || null);
    if (!r.card) errors.push({ index: i, token: tok, hint: r.hint });
  });
  return { tokens: tokens, cards: cards, errors: errors, trailingSep: /[\s,]$/.test(text) };
}

export function cardLabel(card) {
  return (RANK_NAME[card[0]] || card[0]) + ' of ' + SUIT_NAME[card[1]];
}
