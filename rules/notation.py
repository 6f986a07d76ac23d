"""Free-form dice notation for the table's dice box: parse -> tree -> roll -> render.

The four steps are separate functions so a roll log can be replayed: :func:`parse` turns text into a
small frozen tree, :func:`roll` throws the tree's dice through a :class:`rules.dice.Roller` and keeps
every face, :func:`render_text` and :func:`render_data` describe the result for people and for the
browser. :func:`bounds` gives the lowest and highest total an expression can produce.

Accepted, case-insensitive, spaces allowed between terms::

    2d6+1d4-2   d20   d%   4d6kh3   4d6kl1   4d6dl1   4d6dh1   d10!   3d6!kh2
    7k3   7k3+5   u5k2   12k4 vs 25          (L5R roll and keep; u = unskilled)
    5x5 vs 6   5x5 6   5x5 vs 9 token      (Five by Five task roll; token = doubles token)
    d20 adv   2d20 advantage   d20+5 dis   d20+5 vs 15

Every bound is checked while parsing, before a single die is thrown, so abusive input fails fast.
"""

from __future__ import annotations

import enum
import itertools
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

from rules.dice import DiceLimitError, Roller, RulesError
from rules.fivebyfive import RANKS as FIVE_BY_FIVE_RANKS
from rules.fivebyfive import chance as five_by_five_chance
from rules.fivebyfive import check as five_by_five_check
from rules.l5r import chance as l5r_chance
from rules.l5r import ten_dice

MAX_LENGTH = 200  # characters in one expression
MAX_TERMS = 20  # dice groups and constants in one expression
MAX_COUNT = 1000  # dice in one group (rolled dice for L5R, before the Ten Dice Rule)
MAX_SIDES = 1000
MAX_NUMBER = 100_000  # constants and targets
MAX_DIGITS = 7  # longer digit runs are refused before being converted
MAX_CHAIN = 100  # throws of one exploding die; the chance of reaching it is at most 2**-99
MAX_DICE_WEIGHT = 1000  # the Roller's cap, checked up front
EXPLODING_WEIGHT = 3  # an exploding die books three dice against the cap, room for its explosions

L5R_SIDES = 10
TEN_DICE = 10  # the Ten Dice Rule's cap on rolled and kept dice


class NotationError(RulesError):
    """Notation the dice box cannot read; ``position`` is the 1-based character at fault."""

    def __init__(self, problem: str, *, text: str, index: int, hint: str = ""):
        self.text = text
        self.index = index  # 0-based, for placing a caret under the input
        self.position = index + 1  # 1-based, as the message says
        self.problem = problem
        message = f"{problem} at position {self.position}: {_excerpt(text, index)}"
        if hint:
            message += f" ({hint})"
        super().__init__(message)


class NotationLimitError(NotationError, DiceLimitError):
    """Notation that asks for more dice, sides, terms or characters than the dice box allows."""


def _excerpt(text: str, index: int, *, width: int = 60) -> str:
    """The input, or a window of it around ``index`` when it is long."""
    if len(text) <= width:
        return text
    start = max(0, min(index - width // 2, len(text) - width))
    return (
        ("..." if start else "") + text[start : start + width] + ("..." if start + width < len(text) else "")
    )


# ---------------------------------------------------------------------------------------------------
# The tree
# ---------------------------------------------------------------------------------------------------


class Keep(enum.Enum):
    HIGHEST = "kh"
    LOWEST = "kl"


@dataclass(frozen=True)
class Dice:
    """``count`` dice of ``sides`` sides; optionally exploding on the top face and keeping some."""

    count: int
    sides: int
    explode: bool = False
    keep: Keep | None = None
    keep_count: int = 0  # how many are kept when ``keep`` is set (drops are stored as keeps)

    @property
    def kept(self) -> int:
        return self.keep_count if self.keep is not None else self.count


@dataclass(frozen=True)
class RollKeep:
    """An L5R roll: ``rolled`` dice of ten sides, keep the ``kept`` highest; tens explode unless unskilled."""

    rolled: int
    kept: int
    unskilled: bool = False


@dataclass(frozen=True)
class Constant:
    value: int


@dataclass(frozen=True)
class Term:
    sign: int  # +1 or -1
    node: Dice | RollKeep | Constant


@dataclass(frozen=True)
class Expression:
    """A sum of terms, optionally compared against a target (success when total >= target)."""

    terms: tuple[Term, ...]
    target: int | None = None


@dataclass(frozen=True)
class FiveByFive:
    """A Five by Five task roll against a descriptor value."""

    value: int
    doubles_token: bool = False


Tree = Expression | FiveByFive


# ---------------------------------------------------------------------------------------------------
# Parsing
# ---------------------------------------------------------------------------------------------------

_DIGITS = "0123456789"
_SPACE = " \t"
_ADVANTAGE = {"adv": Keep.HIGHEST, "advantage": Keep.HIGHEST, "dis": Keep.LOWEST, "disadvantage": Keep.LOWEST}


def parse(text: str) -> Tree:
    """Read dice notation into a tree, or raise NotationError pointing at the first bad character."""
    if not isinstance(text, str):
        raise RulesError("Dice notation must be text.")
    if len(text) > MAX_LENGTH:
        raise NotationLimitError(
            f"Too long ({len(text)} characters, at most {MAX_LENGTH})",
            text=text[:MAX_LENGTH],
            index=MAX_LENGTH,
        )
    return _Parser(text).parse()


def _shown(text: str, index: int) -> str:
    """How the character (or word) at ``index`` is named in a message."""
    char = text[index]
    if char.isascii() and char.isalpha():
        end = index
        while end < len(text) and text[end].isascii() and text[end].isalpha():
            end += 1
        return f'"{text[index:end]}"'
    return f'"{char}"' if char.isprintable() else repr(char)


class _Parser:
    def __init__(self, text: str):
        self.text = text
        self.i = 0
        self.weight = 0  # dice booked against MAX_DICE_WEIGHT so far

    # -- small helpers ------------------------------------------------------------------------------

    def error(self, problem: str, index: int | None = None, hint: str = "", *, limit: bool = False):
        cls = NotationLimitError if limit else NotationError
        return cls(problem, text=self.text, index=self.i if index is None else index, hint=hint)

    def unexpected(self, hint: str = ""):
        if self.i >= len(self.text):
            return self.error("Unexpected end", hint=hint)
        return self.error(f"Unexpected {_shown(self.text, self.i)}", hint=hint)

    def peek(self, offset: int = 0) -> str:
        j = self.i + offset
        return self.text[j].lower() if j < len(self.text) else ""

    def skip_space(self) -> None:
        while self.i < len(self.text) and self.text[self.i] in _SPACE:
            self.i += 1

    def at_digit(self, offset: int = 0) -> bool:
        char = self.peek(offset)
        return char != "" and char in _DIGITS

    def number(self, what: str, *, low: int, high: int, limit_high: bool = True) -> int:
        """A run of digits between ``low`` and ``high``; too long a run is refused before conversion."""
        start = self.i
        if not self.at_digit():
            raise self.unexpected(f"expected {what}")
        while self.at_digit():
            self.i += 1
            if self.i - start > MAX_DIGITS:
                raise self.error(f"{what.capitalize()} is too large", start, f"at most {high}", limit=True)
        value = int(self.text[start : self.i])
        if value < low:
            raise self.error(f"{what.capitalize()} must be at least {low}", start)
        if value > high:
            raise self.error(f"{what.capitalize()} is too large", start, f"at most {high}", limit=limit_high)
        return value

    def signed_number(self, what: str) -> int:
        sign = 1
        if self.peek() in ("+", "-"):  # peek() is "" at the end, and "" is not in the tuple
            sign = -1 if self.peek() == "-" else 1
            self.i += 1
        return sign * self.number(what, low=0, high=MAX_NUMBER)

    def word(self) -> str:
        start = self.i
        while self.i < len(self.text) and self.text[self.i].isascii() and self.text[self.i].isalpha():
            self.i += 1
        return self.text[start : self.i].lower()

    def book(self, dice: int, index: int) -> None:
        """Count dice against the cap as they are parsed, so a long expression fails at its first excess."""
        self.weight += dice
        if self.weight > MAX_DICE_WEIGHT:
            raise self.error(
                f"Too many dice ({self.weight} counted, at most {MAX_DICE_WEIGHT})",
                index,
                f"an exploding die counts as {EXPLODING_WEIGHT}",
                limit=True,
            )

    # -- grammar ------------------------------------------------------------------------------------

    def parse(self) -> Tree:
        self.skip_space()
        if self.i >= len(self.text):
            raise self.error("Empty notation", hint="try 2d6+1")
        if self.text[self.i : self.i + 3].lower() == "5x5":
            tree: Tree = self.five_by_five()
        else:
            tree = self.expression()
        self.skip_space()
        if self.i < len(self.text):
            raise self.unexpected("expected the end")
        return tree

    def five_by_five(self) -> FiveByFive:
        self.i += 3
        if self.peek() not in ("", " ", "\t"):
            raise self.unexpected("write 5x5 vs 6, with a space after 5x5")
        self.skip_space()
        if self.peek() == "v" and self.peek(1) == "s":
            self.i += 2
            self.skip_space()
        start = self.i
        value = self.signed_number("the descriptor value")
        if value not in FIVE_BY_FIVE_RANKS:
            ranks = ", ".join(str(rank) for rank in FIVE_BY_FIVE_RANKS)
            raise self.error(f"{value} is not a Five by Five value", start, f"use one of {ranks}")
        token = False
        self.skip_space()
        if self.peek().isalpha():
            start = self.i
            word = self.word()
            if word != "token":
                self.i = start
                raise self.unexpected('the only word allowed here is "token", for a doubles token')
            token = True
        return FiveByFive(value, doubles_token=token)

    def expression(self) -> Expression:
        terms: list[Term] = []
        positions: list[int] = []
        edge: tuple[Keep, int] | None = None
        target: int | None = None

        sign = 1
        if self.peek() in ("+", "-"):
            sign = -1 if self.peek() == "-" else 1
            self.i += 1
            self.skip_space()
        positions.append(self.i)
        terms.append(Term(sign, self.term()))
        while True:
            self.skip_space()
            if self.i >= len(self.text):
                break
            char = self.peek()
            if char in ("+", "-"):
                if target is not None:
                    raise self.unexpected("put the target last")
                self.i += 1
                self.skip_space()
                if len(terms) >= MAX_TERMS:
                    raise self.error(f"Too many terms (at most {MAX_TERMS})", limit=True)
                positions.append(self.i)
                terms.append(Term(-1 if char == "-" else 1, self.term()))
            elif char.isascii() and char.isalpha():
                start = self.i
                word = self.word()
                if word == "vs":
                    if target is not None:
                        raise self.error('A second "vs"', start)
                    self.skip_space()
                    target = self.signed_number("the target")
                elif word in _ADVANTAGE:
                    if edge is not None:
                        raise self.error(f'A second "{word}"', start, "one adv or dis per roll")
                    edge = (_ADVANTAGE[word], start)
                else:
                    self.i = start
                    if word[:1] in ("k", "d") and set(word) <= set("kdhl"):
                        raise self.unexpected("keep and drop take a number right after them, as in 4d6kh3")
                    raise self.unexpected("expected +, -, adv, dis or vs")
            else:
                raise self.unexpected("expected +, -, adv, dis or vs")

        if edge is not None:
            terms = self.apply_edge(terms, positions, *edge)
        return Expression(tuple(terms), target)

    def apply_edge(self, terms: list[Term], positions: list[int], keep: Keep, at: int) -> list[Term]:
        """Advantage keeps the best of the expression's one die group; with a single die it adds a second."""
        groups = [n for n, term in enumerate(terms) if not isinstance(term.node, Constant)]
        if len(groups) != 1 or not isinstance(terms[groups[0]].node, Dice):
            raise self.error(
                "Advantage needs exactly one group of dice", at, "write e.g. d20+5 adv; for more, use kh/kl"
            )
        n = groups[0]
        dice = terms[n].node
        if not isinstance(dice, Dice):  # for the type checker; ruled out just above
            raise self.error("Advantage needs exactly one group of dice", at)
        if dice.keep is not None:
            raise self.error("These dice already keep some", at, "use adv/dis or kh/kl, not both")
        count = max(dice.count, 2)
        if count > dice.count:
            self.book((count - dice.count) * (EXPLODING_WEIGHT if dice.explode else 1), positions[n])
        terms[n] = Term(terms[n].sign, Dice(count, dice.sides, dice.explode, keep, 1))
        return terms

    def term(self) -> Dice | RollKeep | Constant:
        start = self.i
        char = self.peek()
        if char == "u" and self.at_digit(1):
            self.i += 1
            rolled = self.number("the number of rolled dice", low=1, high=MAX_COUNT)
            if self.peek() != "k":
                raise self.unexpected("unskilled rolls are written like u5k2")
            self.i += 1
            return self.roll_keep(rolled, start, unskilled=True)
        if char == "d":
            return self.dice(1, start)
        if not self.at_digit():
            raise self.unexpected("expected a number or a die such as d6")
        digits_start = self.i
        while self.at_digit():  # look ahead: a count is bounded by MAX_COUNT, a constant by MAX_NUMBER
            self.i += 1
        follows = self.peek()
        self.i = digits_start
        if follows == "d":
            count = self.number("the number of dice", low=1, high=MAX_COUNT)
            return self.dice(count, start)
        if follows == "k":
            rolled = self.number("the number of rolled dice", low=1, high=MAX_COUNT)
            self.i += 1
            return self.roll_keep(rolled, start, unskilled=False)
        if follows == "x":
            raise self.error(
                "A Five by Five roll stands alone", start, "write 5x5 vs 6, with nothing before or after"
            )
        return Constant(self.number("the number", low=0, high=MAX_NUMBER))

    def dice(self, count: int, start: int) -> Dice:
        self.i += 1  # the "d"
        if self.peek() == "%":
            self.i += 1
            sides = 100
        else:
            sides = self.number("the number of sides", low=1, high=MAX_SIDES)
        explode = False
        keep: Keep | None = None
        keep_count = 0
        while True:
            char = self.peek()
            at = self.i
            if char == "!":
                if explode:
                    raise self.unexpected("the dice already explode")
                if sides < 2:
                    raise self.error("A one-sided die would explode forever", at)
                explode = True
                self.i += 1
            elif char in ("k", "d") and (
                self.at_digit(1) or (self.peek(1) in ("h", "l") and self.at_digit(2))
            ):
                if keep is not None:
                    raise self.unexpected("keep or drop once per group")
                which = self.peek(1) if self.peek(1) in ("h", "l") else ""
                self.i += 2 if which else 1
                highest = which != "l" if char == "k" else which == "h"
                number_at = self.i
                if char == "k":
                    keep_count = self.number(
                        "the number of dice kept", low=1, high=MAX_COUNT, limit_high=False
                    )
                    if keep_count > count:
                        raise self.error(f"Cannot keep {keep_count} of {count} dice", number_at)
                    keep = Keep.HIGHEST if highest else Keep.LOWEST
                else:
                    dropped = self.number(
                        "the number of dice dropped", low=0, high=MAX_COUNT, limit_high=False
                    )
                    if dropped >= count:
                        raise self.error(
                            f"Cannot drop {dropped} of {count} dice", number_at, "one must remain"
                        )
                    # dropping the highest keeps the lowest of the rest, and the other way round
                    keep = Keep.LOWEST if highest else Keep.HIGHEST
                    keep_count = count - dropped
            else:
                break
        self.book(count * (EXPLODING_WEIGHT if explode else 1), start)
        return Dice(count, sides, explode, keep, keep_count)

    def roll_keep(self, rolled: int, start: int, *, unskilled: bool) -> RollKeep:
        number_at = self.i
        kept = self.number("the number of kept dice", low=1, high=MAX_COUNT)
        # Keeping more than you roll only means something once the Ten Dice Rule turns kept dice past
        # ten into +2s (10k12); below ten rolled dice it is a typo, so say so rather than guess.
        if kept > rolled and rolled < TEN_DICE:
            raise self.error(f"Cannot keep {kept} of {rolled} dice", number_at)
        try:
            rolled_after, _, _ = ten_dice(rolled, kept)
        except RulesError as error:
            raise self.error(str(error).rstrip("."), start) from None
        self.book(rolled_after * (1 if unskilled else EXPLODING_WEIGHT), start)
        if self.peek() == "!":
            raise self.unexpected("tens explode on their own in roll and keep; write u5k2 to stop them")
        return RollKeep(rolled, kept, unskilled=unskilled)


def to_notation(tree: Tree) -> str:
    """The canonical text for a tree; parsing it gives the same tree back."""
    if isinstance(tree, FiveByFive):
        return f"5x5 vs {tree.value}" + (" token" if tree.doubles_token else "")
    parts = []
    for n, term in enumerate(tree.terms):
        text = _node_notation(term.node)
        if term.sign < 0:
            parts.append(f"-{text}")
        elif n:
            parts.append(f"+{text}")
        else:
            parts.append(text)
    text = "".join(parts)
    return text if tree.target is None else f"{text} vs {tree.target}"


def _node_notation(node: Dice | RollKeep | Constant) -> str:
    if isinstance(node, Constant):
        return str(node.value)
    if isinstance(node, RollKeep):
        return f"{'u' if node.unskilled else ''}{node.rolled}k{node.kept}"
    text = f"{node.count}d{node.sides}" + ("!" if node.explode else "")
    if node.keep is not None:
        text += f"{node.keep.value}{node.keep_count}"
    return text


# ---------------------------------------------------------------------------------------------------
# Rolling
# ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DieRoll:
    """One die: its chain of faces (more than one when it exploded) and whether it counts."""

    faces: tuple[int, ...]
    kept: bool = True

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

    @property
    def value(self) -> int:
        """What the term adds to the total, sign included."""
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
        """Meets or beats the target; None without one."""
        target = self.expression.target
        return None if target is None else self.total >= target


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


RollResult = ExpressionRoll | FiveByFiveRoll


def roll(tree: Tree, roller: Roller, *, odd_die_bonus: bool = False) -> RollResult:
    """Throw every die the tree asks for through ``roller`` and record each face."""
    if isinstance(tree, FiveByFive):
        faces = tuple(roller.dice(1 if tree.value == -5 else 2, 6))
        outcome = five_by_five_check(tree.value, faces, doubles_token=tree.doubles_token)
        return FiveByFiveRoll(
            tree, faces, success=outcome.success, trump=outcome.trump, doubles=outcome.doubles
        )
    return ExpressionRoll(tree, tuple(_roll_term(term, roller, odd_die_bonus) for term in tree.terms))


def roll_notation(text: str, roller: Roller, *, odd_die_bonus: bool = False) -> RollResult:
    """Parse and roll in one step: what the dice box does with what a player typed."""
    return roll(parse(text), roller, odd_die_bonus=odd_die_bonus)


def _chain(roller: Roller, sides: int, explode_on: int | None) -> tuple[int, ...]:
    """One die, thrown again while it shows ``explode_on``, at most MAX_CHAIN throws."""
    faces = [roller.die(sides)]
    while explode_on is not None and faces[-1] == explode_on and len(faces) < MAX_CHAIN:
        faces.append(roller.die(sides))
    return tuple(faces)


def _mark_kept(chains: list[tuple[int, ...]], keep: Keep | None, count: int) -> tuple[DieRoll, ...]:
    """Keep ``count`` dice by total; on ties the earlier die is kept, so a replay marks the same ones."""
    if keep is None:
        return tuple(DieRoll(chain) for chain in chains)
    direction = -1 if keep is Keep.HIGHEST else 1
    order = sorted(range(len(chains)), key=lambda n: (direction * sum(chains[n]), n))
    chosen = set(order[:count])
    return tuple(DieRoll(chain, kept=n in chosen) for n, chain in enumerate(chains))


def _roll_term(term: Term, roller: Roller, odd_die_bonus: bool) -> TermRoll:
    node = term.node
    if isinstance(node, Constant):
        return TermRoll(term, bonus=node.value)
    if isinstance(node, Dice):
        explode_on = node.sides if node.explode else None
        chains = [_chain(roller, node.sides, explode_on) for _ in range(node.count)]
        return TermRoll(term, _mark_kept(chains, node.keep, node.kept))
    rolled, kept, bonus = ten_dice(node.rolled, node.kept, odd_die_bonus=odd_die_bonus)
    explode_on = None if node.unskilled else L5R_SIDES
    chains = [_chain(roller, L5R_SIDES, explode_on) for _ in range(rolled)]
    return TermRoll(term, _mark_kept(chains, Keep.HIGHEST, kept), bonus=bonus, rolled=rolled, kept=kept)


def bounds(tree: Tree, *, odd_die_bonus: bool = False) -> tuple[int, int]:
    """The lowest and highest total a roll of ``tree`` can show (exploding chains stop at MAX_CHAIN)."""
    if isinstance(tree, FiveByFive):
        return (1, 6) if tree.value == -5 else (1, 36)
    low = high = 0
    for term in tree.terms:
        node = term.node
        if isinstance(node, Constant):
            least = most = node.value
        elif isinstance(node, Dice):
            least = node.kept
            most = node.kept * node.sides * (MAX_CHAIN if node.explode else 1)
        else:
            _, kept, bonus = ten_dice(node.rolled, node.kept, odd_die_bonus=odd_die_bonus)
            least = kept + bonus
            most = kept * L5R_SIDES * (1 if node.unskilled else MAX_CHAIN) + bonus
        if term.sign < 0:
            least, most = -most, -least
        low += least
        high += most
    return low, high


# ---------------------------------------------------------------------------------------------------
# Rendering
# ---------------------------------------------------------------------------------------------------


def _die_text(die: DieRoll) -> str:
    text = "+".join(str(face) for face in die.faces)
    return text if die.kept else f"({text})"


def _term_text(term: TermRoll) -> str:
    node = term.term.node
    if isinstance(node, Constant):
        return str(node.value)
    label = _node_notation(node)
    if isinstance(node, RollKeep) and (term.rolled, term.kept) != (node.rolled, node.kept):
        label += f" as {term.rolled}k{term.kept}" + (f"+{term.bonus}" if term.bonus else "")
    elif isinstance(node, RollKeep) and term.bonus:
        label += f"+{term.bonus}"
    return f"{label} [{', '.join(_die_text(die) for die in term.dice)}]"


def render_text(result: RollResult) -> str:
    """One line for the roll log: each term with its faces, dropped dice in brackets, then the total."""
    if isinstance(result, FiveByFiveRoll):
        faces = ", ".join(str(face) for face in result.dice)
        shown = f"{to_notation(result.check)}: [{faces}] "
        shown += "trump" if result.trump else f"= {result.total}"
        shown += ", success" if result.success else ", failure"
        return shown + (", doubles" if result.doubles else "")
    parts = []
    for n, term in enumerate(result.terms):
        text = _term_text(term)
        if term.term.sign < 0:
            parts.append(f"- {text}" if n else f"-{text}")
        else:
            parts.append(f"+ {text}" if n else text)
    shown = f"{' '.join(parts)} = {result.total}"
    if result.expression.target is not None:
        shown += f" vs {result.expression.target}: {'success' if result.success else 'failure'}"
    return shown


def render_data(result: RollResult) -> dict:
    """The same roll as plain JSON-ready data: terms with every die's faces and flags, and the total."""
    if isinstance(result, FiveByFiveRoll):
        return {
            "kind": "five_by_five",
            "notation": to_notation(result.check),
            "terms": [
                {
                    "kind": "five_by_five",
                    "notation": "1d6" if len(result.dice) == 1 else "2d6",
                    "sign": 1,
                    "dice": [_die_data(DieRoll((face,))) for face in result.dice],
                    "bonus": 0,
                    "value": result.total,
                }
            ],
            "total": result.total,
            "value": result.check.value,
            "doubles_token": result.check.doubles_token,
            "success": result.success,
            "trump": result.trump,
            "doubles": result.doubles,
        }
    return {
        "kind": "expression",
        "notation": to_notation(result.expression),
        "terms": [_term_data(term) for term in result.terms],
        "total": result.total,
        "target": result.expression.target,
        "success": result.success,
    }


def _die_data(die: DieRoll) -> dict:
    return {"faces": list(die.faces), "total": die.total, "kept": die.kept, "exploded": die.exploded}


def _term_data(term: TermRoll) -> dict:
    node = term.term.node
    data = {
        "kind": {Constant: "constant", Dice: "dice", RollKeep: "roll_keep"}[type(node)],
        "notation": _node_notation(node),
        "sign": term.term.sign,
        "dice": [_die_data(die) for die in term.dice],
        "bonus": term.bonus,
        "value": term.value,
    }
    if isinstance(node, RollKeep):
        data.update(rolled=term.rolled, kept=term.kept, unskilled=node.unskilled)
    return data


# ---------------------------------------------------------------------------------------------------
# Exact odds of a line with a target. Bounded so a request never computes for long: anything bigger
# (or exploding dice outside roll and keep) simply has no chance worked out.
_MAX_CONVOLUTION = 600  # count * sides of one plain dice group
_MAX_ENUMERATION = 50_000  # sides ** count for a group that keeps some of its dice
_MAX_SUPPORT = 20_000  # distinct totals across the whole expression


def chance(tree: Expression | FiveByFive, *, odd_die_bonus: bool = False) -> Fraction | None:
    """The exact chance (a Fraction) that a line meets its target; None without a target or when too big."""
    if isinstance(tree, FiveByFive):
        return five_by_five_chance(tree.value, doubles_token=tree.doubles_token)
    if tree.target is None:
        return None
    constant = sum(t.sign * t.node.value for t in tree.terms if isinstance(t.node, Constant))
    groups = [t for t in tree.terms if not isinstance(t.node, Constant)]
    try:
        if len(groups) == 1 and isinstance(groups[0].node, RollKeep) and groups[0].sign > 0:
            node = groups[0].node
            return l5r_chance(
                node.rolled,
                node.kept,
                tree.target,
                explode=not node.unskilled,
                bonus=constant,
                odd_die_bonus=odd_die_bonus,
            )
        counts, denominator = {constant: 1}, 1
        for term in groups:
            group = _dice_counts(term.node)
            if group is None:
                return None
            group_counts, group_denominator = group
            if term.sign < 0:
                group_counts = {-total: n for total, n in group_counts.items()}
            counts = _convolve(counts, group_counts)
            if len(counts) > _MAX_SUPPORT:
                return None
            denominator *= group_denominator
    except RulesError:
        return None
    return Fraction(sum(n for total, n in counts.items() if total >= tree.target), denominator)


def _convolve(left: dict[int, int], right: dict[int, int]) -> dict[int, int]:
    out: dict[int, int] = {}
    for a, m in left.items():
        for b, n in right.items():
            out[a + b] = out.get(a + b, 0) + m * n
    return out


@lru_cache(maxsize=256)
def _dice_counts(node) -> tuple[dict[int, int], int] | None:
    """Ways to reach each total with one plain dice group, and the number of outcomes; None if too big.

    Cached: a table rolls the same few lines all night, and "4d6kh3" alone walks 1,296 outcomes.
    Callers must not change the returned dict.
    """
    if not isinstance(node, Dice) or node.explode:
        return None
    die = {face: 1 for face in range(1, node.sides + 1)}
    if node.keep is None:
        if node.count * node.sides > _MAX_CONVOLUTION:
            return None
        counts = {0: 1}
        for _ in range(node.count):
            counts = _convolve(counts, die)
        return counts, node.sides**node.count
    if node.sides**node.count > _MAX_ENUMERATION:
        return None
    counts = {}
    highest = node.keep is Keep.HIGHEST
    for faces in itertools.product(range(1, node.sides + 1), repeat=node.count):
        ordered = sorted(faces, reverse=highest)
        total = sum(ordered[: node.keep_count])
        counts[total] = counts.get(total, 0) + 1
    return counts, node.sides**node.count
