#!/usr/bin/env python3
"""Writes N random 4-place rounds (JSON Lines) for throughput runs of `pusoy-pit settle`.

Usage: scripts/gen-rounds.py [N] > rounds.jsonl   (fixed seed: the same file every time)
Each round deals a shuffled deck to the dealer and three seats and splits each 13 cards into
back/middle/front in deal order, so some sets are fouled; 1 seat in 20 surrenders.
"""
import json
import random
import sys

RANKS = "23456789TJQKA"
SUITS = "cdhs"
DECK = [r + s for r in RANKS for s in SUITS]


def place(cards):
    return {"back": " ".join(cards[0:5]), "middle": " ".join(cards[5:10]), "front": " ".join(cards[10:13])}


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    rng = random.Random(2024)
    out = sys.stdout
    deck = DECK[:]
    for _ in range(n):
        rng.shuffle(deck)
        seats = []
        for seat in range(1, 4):
            cards = deck[13 * seat:13 * seat + 13]
            if rng.random() < 0.05:
                seats.append({"seat": seat, "bet": rng.randint(1, 100) * 100, "action": "surrender"})
            else:
                seats.append({"seat": seat, "bet": rng.randint(1, 100) * 100, **place(cards)})
        out.write(json.dumps({"dealer": place(deck[0:13]), "seats": seats}, separators=(",", ":")))
        out.write("\n")


if __name__ == "__main__":
    main()
