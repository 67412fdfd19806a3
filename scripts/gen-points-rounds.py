#!/usr/bin/env python3
"""Writes N random 4-player points rounds (JSON Lines, "game": "points") for throughput runs of
`pusoy-pit settle`.

Usage: scripts/gen-points-rounds.py [N] > rounds.jsonl   (fixed seed: the same file every time)
Each round deals a shuffled deck to seats 1-4 and splits each 13 cards into back/middle/front in
deal order, so many sets are mis-set; 1 player in 20 surrenders.
"""
import json
import random
import sys

RANKS = "23456789TJQKA"
SUITS = "cdhs"
DECK = [r + s for r in RANKS for s in SUITS]


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    rng = random.Random(2026)
    out = sys.stdout
    deck = DECK[:]
    for _ in range(n):
        rng.shuffle(deck)
        seats = []
        for seat in range(1, 5):
            cards = deck[13 * (seat - 1):13 * seat]
            if rng.random() < 0.05:
                seats.append({"seat": seat, "action": "surrender"})
            else:
                seats.append({"seat": seat, "back": " ".join(cards[0:5]),
                              "middle": " ".join(cards[5:10]), "front": " ".join(cards[10:13])})
        line = {"game": "points", "unit": rng.randint(1, 100) * 100, "seats": seats}
        out.write(json.dumps(line, separators=(",", ":")))
        out.write("\n")


if __name__ == "__main__":
    main()
