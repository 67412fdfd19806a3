/* pusoy-pit: a hand shown as card faces (rank and suit symbol, red or black), under the field
 * that holds its text, so that every card of a hand is seen whatever the field's width. The
 * text field stays the source; the faces are decoration for sighted dealers (aria-hidden).
 */
import { parseText, SUIT_SYMBOL } from './cards.js';

/** Fills `container` with one face per token of `text`; a token that is not a card shows as
 * it was typed, marked. */
export function renderFaces(container, text) {
  const parsed = parseText(text);
  container.textContent = '';
  parsed.tokens.forEach(function (token, i) {
    const card = parsed.cards[i];
    const face = document.createElement('span');
    if (card) {
      const suit = card[1];
      face.className = 'face suit-' + suit + (suit === 'h' || suit === 'd' ? ' red' : ' black');
      face.textContent = (card[0] === 'T' ? '10' : card[0]) + SUIT_SYMBOL[suit];
    } else {
      face.className = 'face bad';
      face.textContent = token;
    }
    container.appendChild(face);
  });
  container.hidden = parsed.tokens.length === 0;
}
