#!/usr/bin/env python3
"""Writes N random 4-place rounds (JSON Lines) for throughput runs of `pusoy-pit settle`.

Usage: scripts/gen-rounds.py [N] [--points] > rounds.jsonl   (fixed seed: the same file every time)
Each round deals a shuffled deck to the dealer and three seats (with --points: to players 1-4 of
a points round, "game": "points") and splits each 13 cards into back/middle/front in deal order,
so some sets are fouled; 1 seat in 20 surrenders.
"""
import json
import random
import sys

RANKS = "23456789TJQKA"
SUITS = "cdhs"
DECK = [r + s for r in RANKS for s in SUITS]


def place(cards):
    return {"back": " ".join(cards[0:5]), "middle": " ".join(cards[5:10]), "front": " ".join(cards[10:13])}


def points(n):
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
                seats.append({"seat": seat, **place(cards)})
        line = {"game": "points", "unit": rng.randint(1, 100) * 100, "seats": seats}
        out.write(json.dumps(line, separators=(",", ":")))
        out.write("\n")


def main():
    args = [arg for arg in sys.argv[1:] if arg != "--points"]
    n = int(args[0]) if args else 1_000_000
    if "--points" in sys.argv:
        points(n)
        return
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
