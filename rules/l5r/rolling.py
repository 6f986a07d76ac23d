"""Reading and rolling the dice: one die's value, which dice are kept, a pool rolled on the server
(exploding tens, an emphasis's re-rolled ones) and the same dice kept again by the player's choice."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from rules.dice import Outcome, Roller, RulesError, check_faces
from rules.l5r.pools import Pool
from rules.l5r.ranks import SIDES, _int, ten_dice

# --------------------------------------------------------------------------- reading the dice


def die_total(chain: Sequence[int], *, explode: bool = True) -> int:
    """The value of one die: its faces added up (a 10 is rolled again); one face only without explode."""
    faces = check_faces(chain, sides=SIDES)
    if not faces:
        raise RulesError("A die needs at least one face.")
    if not explode:
        if len(faces) != 1:
            raise RulesError("Dice do not explode on this roll, so each die shows exactly one face.")
        return faces[0]
    if any(face != SIDES for face in faces[:-1]):
        raise RulesError("Only a 10 is rolled again; this die kept rolling after a lower face.")
    if faces[-1] == SIDES:
        raise RulesError("This die ends on a 10, which must be rolled again.")
    return sum(faces)


def kept_positions(
    die_totals: Sequence[int], kept: int, *, choose: Iterable[int] | None = None
) -> tuple[int, ...]:
    """Which dice are kept: the highest by default (earliest first on ties), or the chosen ones."""
    totals = list(die_totals)
    kept = _int("number of kept dice", kept)
    if not 0 <= kept <= len(totals):
        raise RulesError(f"You cannot keep {kept} of {len(totals)} dice.")
    if choose is None:
        order = sorted(range(len(totals)), key=lambda i: (-totals[i], i))
        return tuple(sorted(order[:kept]))
    picked = tuple(sorted(set(choose)))
    if len(picked) != kept or len(picked) != len(list(choose)):
        raise RulesError(f"Choose exactly {kept} different dice to keep.")
    for i in picked:
        if isinstance(i, bool) or not isinstance(i, int) or not 0 <= i < len(totals):
            raise RulesError(f"There is no die number {i!r} in this roll.")
    return picked


# --------------------------------------------------------------------------- rolling


@dataclass(frozen=True)
class RollResult:
    """One L5R roll, with every face so the log can be replayed through :func:`resolve`."""

    chains: tuple[tuple[int, ...], ...]
    die_totals: tuple[int, ...]
    kept: tuple[int, ...]  # positions of the kept dice
    bonus: int
    total: int
    tn: int | None
    success: bool | None
    explode: bool
    notation: str  # the pool actually rolled, after the Ten Dice Rule
    #: Positions of the dice whose first face, a 1, an emphasis rolled again (their chain is the new die).
    rerolled: tuple[int, ...] = ()

    @property
    def outcome(self) -> Outcome:
        """Success or failure against the TN; none for a roll without one (damage)."""
        return Outcome.of(self.success)


def resolve(
    chains: Sequence[Sequence[int]],
    kept: int,
    *,
    explode: bool = True,
    bonus: int = 0,
    tn: int | None = None,
    choose: Iterable[int] | None = None,
    rerolled: Iterable[int] = (),
) -> RollResult:
    """Read a rolled pool (already folded by the Ten Dice Rule): totals, kept dice, total, success.

    ``rerolled`` names the dice an emphasis rolled again (each first showed a 1); their chains are the
    new dice, which stand whatever they show."""
    chains = tuple(tuple(c) for c in chains)
    rerolled = tuple(sorted(set(rerolled)))
    if any(isinstance(i, bool) or not isinstance(i, int) or not 0 <= i < len(chains) for i in rerolled):
        raise RulesError("A re-rolled die must be one of the roll's dice.")
    totals = tuple(die_total(c, explode=explode) for c in chains)
    if kept > len(totals):
        raise RulesError(f"You cannot keep {kept} of {len(totals)} dice.")
    positions = kept_positions(totals, kept, choose=choose)
    total = sum(totals[i] for i in positions) + _int("bonus", bonus)
    success = None if tn is None else total >= _int("TN", tn)
    notation = f"{'' if explode else 'u'}{len(totals)}k{kept}" + (f"{bonus:+d}" if bonus else "")
    return RollResult(chains, totals, positions, bonus, total, tn, success, explode, notation, rerolled)


def roll(
    roller: Roller,
    rolled: int,
    kept: int,
    *,
    explode: bool = True,
    bonus: int = 0,
    tn: int | None = None,
    odd_die_bonus: bool = False,
    reroll_ones: bool = False,
) -> RollResult:
    """Roll XkY on the server: Ten Dice Rule, exploding tens, keep the highest.

    With ``reroll_ones`` (an emphasis), once every die is rolled each one whose first face is a 1 is
    rolled again, in order, as a whole new die (it may explode); the new die stands even on another 1."""
    rolled, kept, bonus = ten_dice(rolled, kept, bonus, odd_die_bonus=odd_die_bonus)
    explode_on = SIDES if explode else None
    chains = [roller.chain(SIDES, explode_on=explode_on) for _ in range(rolled)]
    rerolled = [i for i, chain in enumerate(chains) if reroll_ones and chain[0] == 1]
    for i in rerolled:
        chains[i] = roller.chain(SIDES, explode_on=explode_on)
    return resolve(chains, kept, explode=explode, bonus=bonus, tn=tn, rerolled=rerolled)


def roll_pool(
    roller: Roller, pool: Pool, *, tn: int | None = None, odd_die_bonus: bool = False
) -> RollResult:
    """Roll a sheet pool (see :func:`roll`)."""
    return roll(
        roller,
        pool.rolled,
        pool.kept,
        explode=pool.explode,
        bonus=pool.bonus,
        tn=tn,
        odd_die_bonus=odd_die_bonus,
        reroll_ones=pool.reroll_ones,
    )


def rekeep(result: RollResult, choose: Iterable[int]) -> RollResult:
    """The same dice with the player's own choice of kept dice."""
    return resolve(
        result.chains,
        len(result.kept),
        explode=result.explode,
        bonus=result.bonus,
        tn=result.tn,
        choose=choose,
        rerolled=result.rerolled,
    )
