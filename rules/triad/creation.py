"""Character creation: the point-buy tiers, a build checked against its tier, and the seed's sample
characters."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from rules.triad.traits import find_trait
from rules.triad.vocabulary import ABILITIES, ABILITY_MAX, ABILITY_MIN, BuildError, TriadError, _int

# ---------------------------------------------------------------------------
# Character creation
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class CreationTier:
    """A point-buy tier: ability points to divide, traits to choose, powers (superheroes)."""

    key: str
    name: str
    points: int
    traits: int
    powers: int = 0
    superhero: bool = False


TIERS: dict[str, CreationTier] = {t.key: t for t in (
    CreationTier("ordinary", "Ordinary", 30, 3),
    CreationTier("heroic", "Heroic", 35, 5),
    CreationTier("elite", "Elite", 40, 7),
    CreationTier("epic", "Epic", 45, 9),
    CreationTier("street_level_superhero", "Street-Level Superhero", 35, 3, 2, True),
    CreationTier("minor_superhero", "Minor Superhero", 40, 3, 4, True),
    CreationTier("major_superhero", "Major Superhero", 50, 5, 6, True),
)}


def tiers_matching(points: int, traits: int, powers: int = 0) -> tuple[str, ...]:
    """Keys of every tier whose totals these counts hit exactly."""
    return tuple(k for k, t in TIERS.items()
                 if (t.points, t.traits, t.powers) == (points, traits, powers))


@dataclass(frozen=True)
class Build:
    """A checked character build."""

    tier: str | None
    body: int
    mind: int
    spirit: int
    traits: tuple[str, ...]
    powers: tuple[str, ...]
    points: int
    in_tier: bool
    #: Tiers whose totals the build hits exactly (more than one can match, e.g. 35/5/0).
    matching_tiers: tuple[str, ...]
    #: Player-readable reasons the build is out of tier (empty when in tier).
    problems: tuple[str, ...] = field(default=())


def validate_character(*, tier: str | None, body: int, mind: int, spirit: int,
                       traits: Iterable[str] = (), powers: Iterable[str] = (),
                       custom_traits: Iterable[str] = (),
                       allow_out_of_tier: bool = False) -> Build:
    """Check a build against its tier: exact points, trait and power counts, 1-20 scores.

    Raises :class:`BuildError` whose ``field`` is one of tier, body, mind, spirit, points,
    traits, powers. With ``allow_out_of_tier`` totals may miss the tier (or tier may be None);
    the returned :class:`Build` then says so in ``in_tier`` and ``problems``.
    """
    tier_info = None
    if tier is not None and tier != "":
        if tier not in TIERS:
            raise BuildError(f"{tier!r} is not a Triad tier; choose one of "
                             f"{', '.join(t.name for t in TIERS.values())}.", field="tier")
        tier_info = TIERS[tier]
    elif not allow_out_of_tier:
        raise BuildError("Choose a tier.", field="tier")
    scores = [_int(v, a.title(), low=ABILITY_MIN, high=ABILITY_MAX, field=a, error=BuildError)
              for a, v in zip(ABILITIES, (body, mind, spirit), strict=True)]

    if isinstance(traits, str):
        raise BuildError("Traits must be a list of names.", field="traits")
    names: list[str] = []
    for raw in traits:
        try:
            trait = find_trait(raw)
        except TriadError as exc:
            raise BuildError(str(exc), field="traits") from None
        if trait.name in names:
            raise BuildError(f"{trait.name} is listed twice.", field="traits")
        names.append(trait.name)
    # A GM may approve traits of the table's own; they count toward the tier like listed ones.
    for raw in custom_traits:
        if not isinstance(raw, str) or not raw.strip():
            raise BuildError("Every custom trait needs a name.", field="traits")
        clean = " ".join(raw.replace("(Adv.)", "").split())
        if clean.lower() in (n.lower() for n in names):
            raise BuildError(f"{clean} is listed twice.", field="traits")
        names.append(clean)

    if isinstance(powers, str):
        raise BuildError("Powers must be a list of names.", field="powers")
    power_names: list[str] = []
    for raw in powers:
        if not isinstance(raw, str) or not raw.strip():
            raise BuildError("Every power needs a name.", field="powers")
        clean = " ".join(raw.split())
        if clean.lower() in (p.lower() for p in power_names):
            raise BuildError(f"{clean} is listed twice.", field="powers")
        power_names.append(clean)

    points = sum(scores)
    matching = tiers_matching(points, len(names), len(power_names))
    problems: list[tuple[str, str]] = []
    if tier_info is None:
        if not matching:
            problems.append(("tier", f"{points} ability points, {len(names)} traits and "
                             f"{len(power_names)} powers match no tier."))
    else:
        if points != tier_info.points:
            problems.append(("points", f"{tier_info.name} characters divide exactly "
                             f"{tier_info.points} points among Body, Mind and Spirit; "
                             f"this one has {points}."))
        if len(names) != tier_info.traits:
            problems.append(("traits", f"{tier_info.name} characters take exactly "
                             f"{tier_info.traits} traits; this one has {len(names)}."))
        if len(power_names) != tier_info.powers:
            problems.append(("powers", f"{tier_info.name} characters take exactly "
                             f"{tier_info.powers} powers; this one has {len(power_names)}."))
    if problems and not allow_out_of_tier:
        key, message = problems[0]
        raise BuildError(message, field=key)
    return Build(tier=tier_info.key if tier_info else None, body=scores[0], mind=scores[1],
                 spirit=scores[2], traits=tuple(names), powers=tuple(power_names),
                 points=points, in_tier=not problems, matching_tiers=matching,
                 problems=tuple(m for _, m in problems))


@dataclass(frozen=True)
class SampleCharacter:
    """A ready-made character from the seed, for one-click creation."""

    key: str
    name: str
    source: str
    background: str
    body: int
    mind: int
    spirit: int
    traits: tuple[str, ...]
    #: The tier the sample fits, or None when its totals match no tier.
    tier: str | None
    powers: tuple[str, ...] = ()

    def build(self) -> Build:
        """Validate the sample the way the builder would (out-of-tier samples allowed)."""
        return validate_character(tier=self.tier, body=self.body, mind=self.mind,
                                  spirit=self.spirit, traits=self.traits, powers=self.powers,
                                  allow_out_of_tier=self.tier is None)


SAMPLE_CHARACTERS: dict[str, SampleCharacter] = {s.key: s for s in (
    SampleCharacter(
        key="van_helsing", name="Abraham Van Helsing",
        source="Bram Stoker's Dracula (1897)",
        background=("Dutch scholar past sixty, white-haired and bespectacled; professor of law "
                    "and philosophy, student of metaphysics, devout Catholic. He and his wife "
                    "drifted apart after their son died."),
        body=8, mind=15, spirit=13,
        traits=("Hard To Unnerve", "Medical Expert", "Natural Sciences", "Occult", "Willpower"),
        tier=None),
    SampleCharacter(
        key="zheng_yi_sao", name="Zheng Yi Sao",
        source="historical figure, early 1800s",
        background=("Chinese woman around thirty, the Pirate Queen of the South China Sea "
                    "from 1801 to 1810. A commanding presence at the head of some 300 ships "
                    "and a devoted pirate army up to 40,000 strong."),
        body=10, mind=12, spirit=13,
        traits=("Criminal", "Honorable", "Swiftness", "Swords", "Tactics"),
        tier="heroic"),
)}
