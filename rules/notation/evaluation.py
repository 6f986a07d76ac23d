"""Rolling a tree: :func:`roll` throws every die it asks for through a Roller and keeps every face.

The result records each throw (rerolled faces, explosions, dropped dice), so a roll log can be
replayed and the rendering can show all of it.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from rules.dice import Outcome, Roller
from rules.fivebyfive import check as five_by_five_check
from rules.l5r import ten_dice
from rules.notation.throws import explode_throws, reroll_throws
from rules.notation.tree import (
    L5R_SIDES,
    MAX_CHAIN,
    Constant,
    Dice,
    Expression,
    FiveByFive,
    Group,
    Keep,
    Product,
    Repeat,
    Term,
    Tree,
    counts_successes,
)


@dataclass(frozen=True)
class DieRoll:
    """One die: its chain of faces (more than one when it exploded) and whether it counts."""

    faces: tuple[int, ...]
    kept: bool = True
    rerolled: tuple[tuple[int, ...], ...] = ()  # per face, the throws a reroll set aside before it
    successes: int | None = None  # successes less failures, for a group that counts them

    @property
    def total(self) -> int:
        return sum(self.faces)

    @property
    def exploded(self) -> bool:
        return len(self.faces) > 1


@dataclass(frozen=True)
class TermRoll:
    """One term as rolled; ``bonus`` is a constant's value or the Ten Dice Rule's +2s."""

    term: Term
    dice: tuple[DieRoll, ...] = ()
    bonus: int = 0
    rolled: int = 0  # dice actually thrown after the Ten Dice Rule (roll and keep only)
    kept: int = 0  # dice kept after the Ten Dice Rule (roll and keep only)
    parts: tuple[TermRoll, ...] = ()  # the terms in brackets, or the two sides of * and /
    amount: int | None = None  # the value before the sign, when it is not the kept dice plus the bonus

    @property
    def value(self) -> int:
        """What the term adds to the total, sign included."""
        if self.amount is not None:
            return self.term.sign * self.amount
        return self.term.sign * (sum(die.total for die in self.dice if die.kept) + self.bonus)


@dataclass(frozen=True)
class ExpressionRoll:
    expression: Expression
    terms: tuple[TermRoll, ...]

    @property
    def total(self) -> int:
        return sum(term.value for term in self.terms)

    @property
    def success(self) -> bool | None:
        """Meets or beats the target; a line counting successes without one needs a single success."""
        target = self.expression.target
        if target is None:
            return self.total >= 1 if counts_successes(self.expression) else None
        return self.total >= target

    @property
    def outcome(self) -> Outcome:
        return Outcome.of(self.success)


@dataclass(frozen=True)
class FiveByFiveRoll:
    check: FiveByFive
    dice: tuple[int, ...]
    success: bool
    trump: bool
    doubles: bool

    @property
    def total(self) -> int:
        """The product of the dice (the single face for a -5 roll); a trump succeeds whatever it is."""
        product = 1
        for face in self.dice:
            product *= face
        return product

    @property
    def outcome(self) -> Outcome:
        return Outcome.of(self.success, trump=self.trump)


@dataclass(frozen=True)
class RepeatRoll:
    repeat: Repeat
    rolls: tuple[ExpressionRoll | FiveByFiveRoll, ...]

    @property
    def total(self) -> None:
        """Each roll keeps its own total; together they have none."""
        return None

    @property
    def success(self) -> None:
        return None

    @property
    def outcome(self) -> Outcome:
        """Each roll has its own outcome (in ``rolls``); the set of them has none."""
        return Outcome.NONE


RollResult = ExpressionRoll | FiveByFiveRoll | RepeatRoll


def roll(tree: Tree, roller: Roller, *, odd_die_bonus: bool = False) -> RollResult:
    """Throw every die the tree asks for through ``roller`` and record each face."""
    if isinstance(tree, Repeat):
        return RepeatRoll(
            tree, tuple(_roll_line(tree.line, roller, odd_die_bonus) for _ in range(tree.count))
        )
    return _roll_line(tree, roller, odd_die_bonus)


def _roll_line(tree: Expression | FiveByFive, roller: Roller, odd_die_bonus: bool):
    if isinstance(tree, FiveByFive):
        faces = tuple(roller.dice(1 if tree.value == -5 else 2, 6))
        outcome = five_by_five_check(tree.value, faces, doubles_token=tree.doubles_token)
        return FiveByFiveRoll(
            tree, faces, success=outcome.success, trump=outcome.trump, doubles=outcome.doubles
        )
    return ExpressionRoll(tree, tuple(_roll_term(term, roller, odd_die_bonus) for term in tree.terms))


def _chain(roller: Roller, sides: int, explode_on: int | None) -> tuple[int, ...]:
    """One L5R die, thrown again while it shows ``explode_on``, at most MAX_CHAIN throws."""
    faces = [roller.die(sides)]
    while explode_on is not None and faces[-1] == explode_on and len(faces) < MAX_CHAIN:
        faces.append(roller.die(sides))
    return tuple(faces)


def _mark_kept(dice: list[DieRoll], keep: Keep | None, count: int) -> tuple[DieRoll, ...]:
    """Keep ``count`` dice by total; on ties the earlier die is kept, so a replay marks the same ones."""
    if keep is None:
        return tuple(dice)
    direction = -1 if keep is Keep.HIGHEST else 1
    order = sorted(range(len(dice)), key=lambda n: (direction * dice[n].total, n))
    chosen = set(order[:count])
    return tuple(dataclasses.replace(die, kept=n in chosen) for n, die in enumerate(dice))


def _throw_die(node: Dice, roller: Roller, throws: int) -> tuple[int, tuple[int, ...]]:
    """One throw with its rerolls (at most ``throws`` in all) and its least/most: (face, set aside)."""
    offset = -2 if node.fudge else 0  # a Fudge die is a d3 read as -1, 0, +1
    face = roller.die(node.sides) + offset
    aside = []
    while node.reroll is not None and node.reroll(face) and len(aside) + 1 < throws:
        aside.append(face)
        face = roller.die(node.sides) + offset
    return node.clamp(face), tuple(aside)


def _roll_dice(node: Dice, roller: Roller) -> tuple[DieRoll, ...]:
    rerolls, chain_throws = reroll_throws(node), explode_throws(node)
    dice = []
    for _ in range(node.count):
        faces: list[int] = []
        aside: list[tuple[int, ...]] = []
        while True:
            face, set_aside = _throw_die(node, roller, rerolls)
            faces.append(face)
            aside.append(set_aside)
            if not node.explodes(face) or len(faces) >= chain_throws:
                break
        successes = None
        if node.success is not None:
            successes = node.counted(sum(faces)) if node.compound else sum(map(node.counted, faces))
        rerolled = tuple(aside) if any(aside) else ()
        dice.append(DieRoll(tuple(faces), rerolled=rerolled, successes=successes))
    return _mark_kept(dice, node.keep, node.kept)


def _roll_term(term: Term, roller: Roller, odd_die_bonus: bool) -> TermRoll:
    node = term.node
    if isinstance(node, Constant):
        return TermRoll(term, bonus=node.value)
    if isinstance(node, Dice):
        dice = _roll_dice(node, roller)
        if node.success is None:
            return TermRoll(term, dice)
        return TermRoll(term, dice, amount=sum(die.successes or 0 for die in dice if die.kept))
    if isinstance(node, Group):
        parts = tuple(_roll_term(inner, roller, odd_die_bonus) for inner in node.terms)
        return TermRoll(term, parts=parts, amount=sum(part.value for part in parts))
    if isinstance(node, Product):
        left = _roll_term(Term(1, node.left), roller, odd_die_bonus)
        right = _roll_term(Term(1, node.right), roller, odd_die_bonus)
        if node.op == "*":
            amount = left.value * right.value
        else:
            amount = left.value // right.value  # never 0: refused while parsing
        return TermRoll(term, parts=(left, right), amount=amount)
    rolled, kept, bonus = ten_dice(node.rolled, node.kept, odd_die_bonus=odd_die_bonus)
    explode_on = None if node.unskilled else L5R_SIDES
    dice = [DieRoll(_chain(roller, L5R_SIDES, explode_on)) for _ in range(rolled)]
    return TermRoll(term, _mark_kept(dice, Keep.HIGHEST, kept), bonus=bonus, rolled=rolled, kept=kept)
