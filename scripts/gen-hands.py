#!/usr/bin/env python3
"""Writes N random dealer hands (JSON Lines) for throughput runs of `pusoy-pit houseway --batch`.

Usage: scripts/gen-hands.py [N] > hands.jsonl   (fixed seed: the same file every time)
Each line is {"cards": "13 cards"}; one line in 10 also carries rules ({"wheel": "second"}),
as historical rounds from tables with other profiles would.
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
    for i in range(n):
        rng.shuffle(deck)
        line = {"cards": " ".join(deck[:13])}
        if i % 10 == 9:
            line["rules"] = {"wheel": "second"}
        out.write(json.dumps(line) + "\n")


if __name__ == "__main__":
    main()
