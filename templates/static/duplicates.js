/* pusoy-pit: the on-screen duplicate check across every card field of the round, as the server
 * checks it: a card may be in only one place, whether in its hands or in its dealt cards (a
 * place's dealt cards and its own hands hold the same cards by design). Pure; tested under
 * node's test runner (tests/js/duplicates.test.mjs).
 */

/**
 * @param fields [{ name, place, kind: 'dealt'|'back'|'middle'|'front', cards: ['As', ...] }]
 * @param where  field -> words for it ('seat 1 back')
 * @returns Map(name -> message) for each field holding a card that is also elsewhere
 */
export function duplicates(fields, where) {
  const messages = new Map();
  const holders = new Map(); // card -> [field]
  fields.forEach(function (f) {
    const seen = new Set();
    f.cards.forEach(function (card) {
      if (seen.has(card)) {
        if (!messages.has(f.name)) messages.set(f.name, card + ' is entered twice');
        return;
      }
      seen.add(card);
      if (!holders.has(card)) holders.set(card, []);
      holders.get(card).push(f);
    });
  });
  holders.forEach(function (list, card) {
    list.forEach(function (f) {
      const other = list.find(function (g) {
        if (g === f) return false;
        // Within one place only two hands clash; dealt cards are the hands' cards.
        return g.place !== f.place || (g.kind !== 'dealt' && f.kind !== 'dealt');
      });
      if (other && !messages.has(f.name)) messages.set(f.name, card + ' is also in ' + where(other));
    });
  });
  return messages;
}
