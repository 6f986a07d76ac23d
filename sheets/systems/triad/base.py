"""What every part of the Triad sheet shares: the abilities' labels, the listed traits and the GM's
out-of-tier option."""

from __future__ import annotations

from rules import triad

ABILITY_LABELS = {triad.BODY: "Body", triad.MIND: "Mind", triad.SPIRIT: "Spirit"}
TRAIT_CHOICES = [(t.name, f"{t.name}{' (Adv.)' if t.adv else ''}") for t in triad.TRAITS]
OUT_OF_TIER_OPTION = "triad_out_of_tier"


def lines(text: str) -> list[str]:
    return [" ".join(line.split()) for line in (text or "").splitlines() if line.strip()]
