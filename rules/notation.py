"""Free-form dice notation for the table's dice box: parse -> tree -> roll -> render, and exact odds.

The four steps are separate functions so a roll log can be replayed: :func:`parse` turns text into a
small frozen tree, :func:`roll` throws the tree's dice through a :class:`rules.dice.Roller` and keeps
every face, :func:`render_text` and :func:`render_data` describe the result for people and for the
browser. :func:`bounds` gives the lowest and highest total an expression can produce, :func:`chance`
the exact chance that a line succeeds and :func:`distribution` every total with its exact chance.

Accepted, case-insensitive, spaces allowed between terms (docs/dice-box.md reads every piece)::

    2d6+1d4-2   d20   d%   4dF   (1d6+2)*2   1d20/2          (division rounds down)
    4d6kh3   4d6k3   4d6kl1   4d6dl1   4d6d1   4d6dh1         (keep and drop)
    1d20r1   1d20rr1   2d6ro<3   8d6mi2   8d6ma5             (rerolls, least and most per die)
    d10!   d6!>=5   3d6e6   d6!!   10d10>=7   10d10>=7f1     (explosions, compounding, successes)
    1d8+3[fire]   1d20+5 # attack   6x 4d6kh3                (labels, comments, repeats)
    7k3   7k3+5   u5k2   12k4 vs 25          (L5R roll and keep; u = unskilled)
    5x5 vs 6   5x5 6   5x5 vs 9 token      (Five by Five task roll; token = doubles token)
    d20 adv   2d20 advantage   d20+5 dis   d20+5 vs 15

Every bound is checked while parsing, before a single die is thrown, so abusive input fails fast.
"""

from __future__ import annotations

import dataclasses
import enum
import math
from collections import Counter
from contextvars import ContextVar
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property, lru_cache

from rules.dice import DiceLimitError, Outcome, Roller, RulesError
from rules.fivebyfive import RANKS as FIVE_BY_FIVE_RANKS
from rules.fivebyfive import chance as five_by_five_chance
from rules.fivebyfive import check as five_by_five_check
from rules.l5r import MAX_ODDS_TARGET as L5R_MAX_TARGET
from rules.l5r import chance as l5r_chance
from rules.l5r import ten_dice

MAX_LENGTH = 200  # characters in one line, comment included
MAX_TERMS = 20  # dice groups and constants in one line, those inside brackets included
MAX_COUNT = 1000  # dice in one group (rolled dice for L5R, before the Ten Dice Rule)
MAX_SIDES = 1000
MAX_NUMBER = 100_000  # constants and targets
MAX_DIGITS = 7  # longer digit runs are refused before being converted
MAX_CHAIN = 100  # throws of one die in a chain (explosions, or rerolls of one throw) at the very most
CHAIN_ODDS_BITS = 99  # a chain stops once its chance of going on has fallen to 2**-99 or below
MAX_DICE_WEIGHT = 1000  # the Roller's cap, checked up front
EXPLODING_WEIGHT = 3  # an exploding die books three dice against the cap, room for its explosions
REROLL_WEIGHT = 3  # so does a die rerolled until it shows another face ...
REROLL_ONCE_WEIGHT = 2  # ... and a die rerolled once books the two throws it may take
MAX_REPEAT = 20  # "6x 4d6kh3": times one line is rolled
MAX_DEPTH = 5  # brackets inside brackets
MAX_LABEL = 40  # characters in a [label]
MAX_TOTAL = 10**12  # the largest total (either sign) a line may reach; exact in a browser's numbers

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


class NotExact(RulesError):
    """A line whose exact distribution is out of reach within the dice box's time bound."""


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
class Condition:
    """A test on a face: ``op`` is one of ``= < > <= >=``; ``<`` and ``>`` are strict."""

    op: str
    value: int

    def __call__(self, face: int) -> bool:
        if self.op == "=":
            return face == self.value
        if self.op == "<":
            return face < self.value
        if self.op == ">":
            return face > self.value
        if self.op == "<=":
            return face <= self.value
        return face >= self.value

    def text(self, *, bare: bool = True) -> str:
        """``=`` is left out where a bare number means the same (r1, !6, f1)."""
        if bare and self.op == "=" and self.value >= 0:
            return str(self.value)
        return f"{self.op}{self.value}"


@dataclass(frozen=True)
class Dice:
    """``count`` dice of ``sides`` sides and what happens to each throw, each die and the group.

    Per throw: a reroll (``reroll``; once or until another face shows), then ``minimum``/``maximum``.
    Per die: an explosion on ``explode_on`` (the top face when None) throws again and adds.
    Per group: keep some dice (``keep``; drops are stored as keeps), then either sum them or, with
    ``success``, count the faces meeting it less those meeting ``failure``.
    """

    count: int
    sides: int
    explode: bool = False
    keep: Keep | None = None
    keep_count: int = 0  # how many are kept when ``keep`` is set
    fudge: bool = False  # Fudge dice: sides is 3 and the faces are -1, 0 and +1
    explode_on: Condition | None = None
    compound: bool = False  # "!!": successes look at a die's whole chain, not at each face
    reroll: Condition | None = None
    reroll_once: bool = False
    minimum: int | None = None
    maximum: int | None = None
    success: Condition | None = None
    failure: Condition | None = None

    @property
    def kept(self) -> int:
        return self.keep_count if self.keep is not None else self.count

    @property
    def low(self) -> int:
        return -1 if self.fudge else 1

    @property
    def high(self) -> int:
        return 1 if self.fudge else self.sides

    def clamp(self, face: int) -> int:
        if self.minimum is not None and face < self.minimum:
            return self.minimum
        if self.maximum is not None and face > self.maximum:
            return self.maximum
        return face

    def explodes(self, face: int) -> bool:
        if not self.explode:
            return False
        return self.explode_on(face) if self.explode_on is not None else face == self.high

    def counted(self, value: int) -> int:
        """+1 for a success, -1 for a failure (both cancel out), 0 otherwise."""
        return int(self.success is not None and self.success(value)) - int(
            self.failure is not None and self.failure(value)
        )


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
class Group:
    """A sum in brackets."""

    terms: tuple[Term, ...]


@dataclass(frozen=True)
class Product:
    """``left * right`` or ``left / right``; division rounds down (towards minus infinity)."""

    left: Node
    op: str
    right: Node


Node = Dice | RollKeep | Constant | Group | Product


@dataclass(frozen=True)
class Term:
    sign: int  # +1 or -1
    node: Node
    label: str = ""  # "1d8+3[fire]" labels the 3


@dataclass(frozen=True)
class Expression:
    """A sum of terms, optionally compared against a target (success when total >= target)."""

    terms: tuple[Term, ...]
    target: int | None = None
    comment: str = ""


@dataclass(frozen=True)
class FiveByFive:
    """A Five by Five task roll against a descriptor value."""

    value: int
    doubles_token: bool = False
    comment: str = ""


@dataclass(frozen=True)
class Repeat:
    """One line rolled ``count`` times, each roll on its own ("6x 4d6kh3")."""

    count: int
    line: Expression | FiveByFive
    comment: str = ""


Tree = Expression | FiveByFive | Repeat


def counts_successes(tree: Tree) -> bool:
    """Whether some dice group in the line counts successes rather than adding its faces."""
    if isinstance(tree, Repeat):
        return counts_successes(tree.line)
    if isinstance(tree, FiveByFive):
        return False
    return any(_node_counts(term.node) for term in tree.terms)


def _node_counts(node: Node) -> bool:
    if isinstance(node, Dice):
        return node.success is not None
    if isinstance(node, Group):
        return any(_node_counts(term.node) for term in node.terms)
    if isinstance(node, Product):
        return _node_counts(node.left) or _node_counts(node.right)
    return False


# ---------------------------------------------------------------------------------------------------
# One throw, one chain: shared by rolling, bounds and the odds so the three always agree
# ---------------------------------------------------------------------------------------------------


def _chain_cap(weight: int, total: int) -> int:
    """Throws a chain may take when each further throw happens with chance weight/total (at most 1/2).

    The chain stops at the first length whose chance has fallen to 2**-99 or below, so the cap is
    out of reach in practice (a d2! needs the full MAX_CHAIN, a d6! stops at 40, a d20rr1 at 24).
    """
    if weight <= 0:
        return 1
    weights, totals = weight, total
    for extra in range(1, MAX_CHAIN):
        if weights << CHAIN_ODDS_BITS <= totals:
            return extra + 1
        weights, totals = weights * weight, totals * total
    return MAX_CHAIN


@lru_cache(maxsize=128)  # a rerolled d1000's counts hold a thousand 1,000-bit integers: keep few
def _throw_counts(
    low: int, high: int, reroll: Condition | None, once: bool, minimum: int | None, maximum: int | None
) -> tuple[int, tuple[int, ...], int]:
    """One throw after its rerolls and its least/most: (lowest face, ways for each face up, ways in all)."""
    faces = range(low, high + 1)
    sides = len(faces)
    if reroll is None:
        weights = [1] * sides
        total = sides
    else:
        matched = [reroll(face) for face in faces]
        hits = sum(matched)
        throws = 2 if once else _chain_cap(hits, sides)
        total = sides**throws
        # kept at the first throw that misses the reroll, or the last throw whatever it shows
        missed = sum(hits**j * sides ** (throws - 1 - j) for j in range(throws - 1))
        last = hits ** (throws - 1)
        weights = [(0 if hit else missed) + last for hit in matched]
    shown_low = low if minimum is None else max(low, minimum)
    shown_high = high if maximum is None else min(high, maximum)
    counts = [0] * (shown_high - shown_low + 1)
    for face, weight in zip(faces, weights, strict=True):
        counts[min(max(face, shown_low), shown_high) - shown_low] += weight
    common = math.gcd(total, *counts)
    return shown_low, tuple(c // common for c in counts), total // common


def _throw(node: Dice) -> tuple[int, tuple[int, ...], int]:
    return _throw_counts(node.low, node.high, node.reroll, node.reroll_once, node.minimum, node.maximum)


def _reroll_throws(node: Dice) -> int:
    if node.reroll is None:
        return 1
    if node.reroll_once:
        return 2
    hits = sum(1 for face in range(node.low, node.high + 1) if node.reroll(face))
    return _chain_cap(hits, node.high - node.low + 1)


def _explode_throws(node: Dice) -> int:
    if not node.explode:
        return 1
    low, counts, total = _throw(node)
    weight = sum(c for n, c in enumerate(counts) if node.explodes(low + n))
    return _chain_cap(weight, total)


# ---------------------------------------------------------------------------------------------------
# Parsing
# ---------------------------------------------------------------------------------------------------

_DIGITS = "0123456789"
_SPACE = " \t"
_ADVANTAGE = {"adv": Keep.HIGHEST, "advantage": Keep.HIGHEST, "dis": Keep.LOWEST, "disadvantage": Keep.LOWEST}
_COMPARE = ("<=", ">=", "<", ">", "=")


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


def _union(*ranges: tuple[int, int]) -> tuple[int, int]:
    return min(r[0] for r in ranges), max(r[1] for r in ranges)


class _Parser:
    def __init__(self, text: str):
        self.text = text
        self.i = 0
        self.weight = 0  # dice booked against MAX_DICE_WEIGHT so far
        self.atoms = 0  # dice groups and constants so far, against MAX_TERMS

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

    def signed_number(self, what: str, *, high: int = MAX_NUMBER) -> int:
        sign = 1
        if self.peek() in ("+", "-"):  # peek() is "" at the end, and "" is not in the tuple
            sign = -1 if self.peek() == "-" else 1
            self.i += 1
        return sign * self.number(what, low=0, high=high)

    def word(self) -> str:
        start = self.i
        while self.i < len(self.text) and self.text[self.i].isascii() and self.text[self.i].isalpha():
            self.i += 1
        return self.text[start : self.i].lower()

    def book(self, dice: int, index: int, hint: str = "") -> None:
        """Count dice against the cap as they are parsed, so a long expression fails at its first excess."""
        self.weight += dice
        if self.weight > MAX_DICE_WEIGHT:
            raise self.error(
                f"Too many dice ({self.weight} counted, at most {MAX_DICE_WEIGHT})",
                index,
                hint or f"an exploding or rerolled die counts as {EXPLODING_WEIGHT}",
                limit=True,
            )

    def atom(self, index: int) -> None:
        self.atoms += 1
        if self.atoms > MAX_TERMS:
            raise self.error(f"Too many terms (at most {MAX_TERMS})", index, limit=True)

    def printable(self, start: int, end: int, what: str) -> str:
        for j in range(start, end):
            if not (self.text[j].isprintable() or self.text[j] == "\t"):
                raise self.error(f"{what} cannot hold {_shown(self.text, j)}", j)
        return self.text[start:end].strip()

    # -- the line -----------------------------------------------------------------------------------

    def parse(self) -> Tree:
        self.skip_space()
        if self.i >= len(self.text):
            raise self.error("Empty notation", hint="try 2d6+1")
        tree: Tree
        if self.text[self.i : self.i + 3].lower() == "5x5":
            tree = self.five_by_five()
        elif self.repeat_ahead():
            tree = self.repeat()
        else:
            tree = self.expression()
        self.skip_space()
        if self.peek() == "#":
            comment = self.printable(self.i + 1, len(self.text), "A comment")
            self.i = len(self.text)
            if comment:
                tree = dataclasses.replace(tree, comment=comment)
        if self.i < len(self.text):
            raise self.unexpected("expected the end")
        return tree

    def repeat_ahead(self) -> bool:
        j = self.i
        while j < len(self.text) and self.text[j] in _DIGITS:
            j += 1
        return j > self.i and j + 1 < len(self.text) and self.text[j] in "xX" and self.text[j + 1] in _SPACE

    def repeat(self) -> Repeat:
        start = self.i
        count = self.number("the number of rolls", low=1, high=MAX_REPEAT)
        self.i += 1  # the "x"
        self.skip_space()
        line: Expression | FiveByFive
        if self.text[self.i : self.i + 3].lower() == "5x5":
            line = self.five_by_five()
        else:
            line = self.expression()
        if self.weight * count > MAX_DICE_WEIGHT:
            raise self.error(
                f"Too many dice ({count} rolls of {self.weight} counted, at most {MAX_DICE_WEIGHT})",
                start,
                limit=True,
            )
        return Repeat(count, line)

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
        terms, positions, target, edge = self.sum(0)
        if edge is not None:
            terms = self.apply_edge(terms, positions, *edge)
        return Expression(tuple(terms), target)

    def sum(self, depth: int) -> tuple[list[Term], list[int], int | None, tuple[Keep, int] | None]:
        """Terms joined by + and -; at the top (depth 0) also vs, adv/dis; labels after any term."""
        terms: list[Term] = []
        positions: list[int] = []
        edge: tuple[Keep, int] | None = None
        target: int | None = None
        low = high = 0

        def add(sign: int) -> None:
            nonlocal low, high
            positions.append(self.i)
            node = self.product(depth)
            least, most = _parse_bounds(node)
            if sign < 0:
                least, most = -most, -least
            low, high = low + least, high + most
            if max(-low, high) > MAX_TOTAL:
                raise self.error(f"Totals past {MAX_TOTAL:,} are refused", positions[-1], limit=True)
            terms.append(Term(sign, node))

        sign = 1
        if self.peek() in ("+", "-"):
            sign = -1 if self.peek() == "-" else 1
            self.i += 1
            self.skip_space()
        add(sign)
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
                add(-1 if char == "-" else 1)
            elif char == "[":
                if target is not None:
                    raise self.unexpected("a label goes right after the term it names")
                terms[-1] = self.label(terms[-1])
            elif char in ("*", "/"):
                if target is not None:
                    raise self.unexpected("put the target last")
                raise self.unexpected("put the label after the whole term, as in 2d6*2[fire]")
            elif char == ")":
                if depth:
                    break
                raise self.unexpected("no bracket is open")
            elif char == "#":
                if depth:
                    raise self.unexpected("close the bracket before the comment")
                break
            elif char.isascii() and char.isalpha():
                start = self.i
                word = self.word()
                if depth and (word == "vs" or word in _ADVANTAGE):
                    self.i = start
                    raise self.unexpected(f'"{word}" goes outside the brackets')
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
                raise self.unexpected("expected +, -, *, /, adv, dis or vs")
        return terms, positions, target, edge

    def label(self, term: Term) -> Term:
        start = self.i
        if term.label:
            raise self.error("A second label", start, "one label per term")
        end = self.text.find("]", start + 1)
        if end < 0:
            raise self.error("A label without its closing ]", start)
        if end - start - 1 > MAX_LABEL:
            raise self.error(f"A label of more than {MAX_LABEL} characters", start, limit=True)
        if "[" in self.text[start + 1 : end]:
            raise self.error("A label inside a label", self.text.index("[", start + 1))
        text = self.printable(start + 1, end, "A label")
        if not text:
            raise self.error("An empty label", start)
        self.i = end + 1
        return dataclasses.replace(term, label=text)

    def product(self, depth: int) -> Node:
        node = self.factor(depth)
        while True:
            save = self.i
            self.skip_space()
            op = self.peek()
            if op not in ("*", "/"):
                self.i = save
                return node
            op_at = self.i
            self.i += 1
            self.skip_space()
            right_at = self.i
            right = self.factor(depth)
            if op == "/":
                least, most = _parse_bounds(right)
                if least <= 0 <= most:
                    raise self.error(
                        "Could divide by zero", right_at, "divide only by something that is never 0"
                    )
            node = Product(node, op, right)
            least, most = _parse_bounds(node)
            if max(-least, most) > MAX_TOTAL:
                raise self.error(f"Totals past {MAX_TOTAL:,} are refused", op_at, limit=True)

    def factor(self, depth: int) -> Node:
        if self.peek() != "(":
            return self.term()
        start = self.i
        if depth >= MAX_DEPTH:
            raise self.error(f"Brackets nested more than {MAX_DEPTH} deep", start, limit=True)
        self.i += 1
        self.skip_space()
        if self.i >= len(self.text):
            raise self.unexpected("expected what goes in the brackets")
        terms, _, _, _ = self.sum(depth + 1)
        self.skip_space()
        if self.peek() != ")":
            raise self.error("A bracket that is never closed", start)
        self.i += 1
        return Group(tuple(terms))

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
            self.book((count - dice.count) * _die_weight(dice), positions[n])
        terms[n] = dataclasses.replace(
            terms[n], node=dataclasses.replace(dice, count=count, keep=keep, keep_count=1)
        )
        return terms

    def term(self) -> Dice | RollKeep | Constant:
        start = self.i
        char = self.peek()
        if char == "u" and self.at_digit(1):
            self.atom(start)
            self.i += 1
            rolled = self.number("the number of rolled dice", low=1, high=MAX_COUNT)
            if self.peek() != "k":
                raise self.unexpected("unskilled rolls are written like u5k2")
            self.i += 1
            return self.roll_keep(rolled, start, unskilled=True)
        if char == "d":
            self.atom(start)
            return self.dice(1, start)
        if not self.at_digit():
            raise self.unexpected("expected a number or a die such as d6")
        self.atom(start)
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
            if self.text[start : start + 3].lower() == "5x5":
                raise self.error(
                    "A Five by Five roll stands alone", start, "write 5x5 vs 6, with nothing before or after"
                )
            raise self.error(
                "A repeat goes first, with a space after the x",
                start,
                "write 6x 4d6kh3 to roll 4d6kh3 six times",
            )
        return Constant(self.number("the number", low=0, high=MAX_NUMBER))

    def condition(self, what: str, *, required_op: bool = False) -> Condition:
        """A comparison and a face: ``<=3``, ``>5``, ``=6``, or a bare ``6`` (=6) unless ``required_op``."""
        op = next((op for op in _COMPARE if self.text.startswith(op, self.i)), "")
        if not op and (required_op or not self.at_digit()):
            raise self.unexpected(f"expected {what}, such as >=5 or 1")
        self.i += len(op)
        if op:
            return Condition(op, self.signed_number("the face", high=MAX_SIDES))
        return Condition("=", self.number("the face", low=0, high=MAX_SIDES))

    def condition_ahead(self) -> bool:
        return self.at_digit() or any(self.text.startswith(op, self.i) for op in _COMPARE)

    def dice(self, count: int, start: int) -> Dice:
        self.i += 1  # the "d"
        fudge = False
        if self.peek() == "%":
            self.i += 1
            sides = 100
        elif self.peek() == "f":
            self.i += 1
            sides, fudge = 3, True
        else:
            sides = self.number("the number of sides", low=1, high=MAX_SIDES)
        fields: dict = {"fudge": fudge}
        at: dict[str, int] = {}  # where each modifier was written, for pointing at it
        keep: Keep | None = None
        keep_count = 0
        while True:
            char = self.peek()
            here = self.i
            if char == "!" or (char == "e" and (self.condition_ahead_at(1))):
                if "explode" in fields:
                    raise self.unexpected("the dice already explode")
                self.i += 1
                fields["explode"] = True
                if char == "!" and self.peek() == "!":
                    self.i += 1
                    fields["compound"] = True
                at["explode"] = here
                if char == "e" or self.condition_ahead():
                    fields["explode_on"] = self.condition("the face that explodes")
            elif char == "r" and (
                self.condition_ahead_at(1) or (self.peek(1) in ("o", "r") and self.condition_ahead_at(2))
            ):
                if "reroll" in fields:
                    raise self.unexpected("one reroll per group; r<3 rerolls both 1s and 2s")
                once = self.peek(1) == "o"
                self.i += 2 if self.peek(1) in ("o", "r") else 1
                at["reroll"] = here
                fields["reroll_once"] = once
                fields["reroll"] = self.condition("the face to reroll")
            elif char == "m" and self.peek(1) in ("i", "a"):
                name = "minimum" if self.peek(1) == "i" else "maximum"
                if name in fields:
                    raise self.unexpected(f"one {name} per group")
                self.i += 2
                at[name] = here
                fields[name] = self.signed_number(f"the {name}", high=MAX_SIDES)
            elif char in ("<", ">", "="):
                if "success" in fields:
                    raise self.unexpected("count successes once per group")
                at["success"] = here
                fields["success"] = self.condition("what counts as a success", required_op=True)
            elif char == "f" and self.condition_ahead_at(1):
                if "success" not in fields:
                    raise self.unexpected("count failures after successes, as in 10d10>=7f1")
                if "failure" in fields:
                    raise self.unexpected("count failures once per group")
                self.i += 1
                at["failure"] = here
                fields["failure"] = self.condition("what counts as a failure")
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
        node = Dice(count, sides, keep=keep, keep_count=keep_count, **fields)
        node = self.checked(node, at)
        self.book(count * _die_weight(node), start)
        return node

    def condition_ahead_at(self, offset: int) -> bool:
        save = self.i
        self.i += offset
        try:
            return self.condition_ahead()
        finally:
            self.i = save

    def checked(self, node: Dice, at: dict[str, int]) -> Dice:
        """Refuse modifiers that can never apply or would never stop; the top face explodes when unsaid."""
        faces = range(node.low, node.high + 1)
        die = "a Fudge die" if node.fudge else f"a d{node.sides}"
        for name in ("minimum", "maximum"):
            value = getattr(node, name)
            if value is not None and value not in faces:
                raise self.error(f"{die.capitalize()} cannot show {value}", at[name])
        if node.minimum is not None and node.maximum is not None and node.minimum > node.maximum:
            raise self.error("The least face is above the most", at["maximum"])
        if node.reroll is not None:
            hits = sum(1 for face in faces if node.reroll(face))
            if hits == 0:
                raise self.error(f"{die.capitalize()} never shows {node.reroll.text()}", at["reroll"])
            if hits == len(faces):
                raise self.error("That rerolls every face", at["reroll"], "it would never stop")
            if not node.reroll_once and 2 * hits > len(faces):
                raise self.error(
                    "Rerolling until another face shows works on at most half the faces",
                    at["reroll"],
                    "use ro to reroll once",
                )
        if node.explode:
            if node.explode_on == Condition("=", node.high):
                node = dataclasses.replace(node, explode_on=None)
            low, counts, total = _throw(node)
            shown = range(low, low + len(counts))
            exploding = [face for face in shown if node.explodes(face)]
            weight = sum(counts[face - low] for face in exploding)
            if len(exploding) == len(shown):
                if node.sides == 1 and not node.fudge:
                    raise self.error("A one-sided die would explode forever", at["explode"])
                raise self.error("Every face explodes", at["explode"], "it would explode forever")
            if not exploding:
                raise self.error(f"{die.capitalize()} never explodes there", at["explode"])
            if 2 * weight > total:
                raise self.error(
                    "Dice explode on at most half their throws", at["explode"], "e.g. d6!>=4, not d6!>=3"
                )
        for name in ("success", "failure"):
            condition = getattr(node, name)
            if condition is not None and not any(condition(face) for face in faces):
                raise self.error(f"{die.capitalize()} never shows {condition.text()}", at[name])
        return node

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


def _die_weight(node: Dice) -> int:
    """Dice one die books against the cap: room for its rerolls and its explosions."""
    reroll = 1
    if node.reroll is not None:
        reroll = REROLL_ONCE_WEIGHT if node.reroll_once else REROLL_WEIGHT
    return reroll * (EXPLODING_WEIGHT if node.explode else 1)


def _parse_bounds(node: Node) -> tuple[int, int]:
    """Bounds that hold with and without the odd-die house rule, for checks made while parsing."""
    return _union(_node_bounds(node, False), _node_bounds(node, True))


def to_notation(tree: Tree, *, with_comment: bool = True) -> str:
    """The canonical text for a tree; parsing it gives the same tree back (``with_comment=False``:
    the dice alone, for a feed entry's label, which shows the comment on a line of its own)."""
    comment = f" # {tree.comment}" if tree.comment and with_comment else ""
    if isinstance(tree, Repeat):
        return f"{tree.count}x {to_notation(tree.line, with_comment=with_comment)}{comment}"
    if isinstance(tree, FiveByFive):
        return f"5x5 vs {tree.value}" + (" token" if tree.doubles_token else "") + comment
    text = _sum_notation(tree.terms)
    return (text if tree.target is None else f"{text} vs {tree.target}") + comment


def _sum_notation(terms: tuple[Term, ...]) -> str:
    parts = []
    for n, term in enumerate(terms):
        text = _node_notation(term.node) + (f"[{term.label}]" if term.label else "")
        if term.sign < 0:
            parts.append(f"-{text}")
        elif n:
            parts.append(f"+{text}")
        else:
            parts.append(text)
    return "".join(parts)


def _node_notation(node: Node) -> str:
    if isinstance(node, Constant):
        return str(node.value)
    if isinstance(node, RollKeep):
        return f"{'u' if node.unskilled else ''}{node.rolled}k{node.kept}"
    if isinstance(node, Group):
        return f"({_sum_notation(node.terms)})"
    if isinstance(node, Product):
        right = _node_notation(node.right)
        if isinstance(node.right, Product):
            right = f"({right})"
        return f"{_node_notation(node.left)}{node.op}{right}"
    text = f"{node.count}dF" if node.fudge else f"{node.count}d{node.sides}"
    if node.reroll is not None:
        text += ("ro" if node.reroll_once else "r") + node.reroll.text()
    if node.minimum is not None:
        text += f"mi{node.minimum}"
    if node.maximum is not None:
        text += f"ma{node.maximum}"
    # successes go before the explosion: "!>=5" would read as exploding on 5 or more
    if node.success is not None:
        text += node.success.text(bare=False)
    if node.failure is not None:
        text += "f" + node.failure.text()
    if node.explode:
        text += "!!" if node.compound else "!"
        if node.explode_on is not None:
            text += node.explode_on.text()
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
    reroll_throws, chain_throws = _reroll_throws(node), _explode_throws(node)
    dice = []
    for _ in range(node.count):
        faces: list[int] = []
        aside: list[tuple[int, ...]] = []
        while True:
            face, set_aside = _throw_die(node, roller, reroll_throws)
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


def bounds(tree: Tree, *, odd_die_bonus: bool = False) -> tuple[int, int]:
    """The lowest and highest total a roll of ``tree`` can show (chains stop where rolling stops them)."""
    if isinstance(tree, Repeat):
        return bounds(tree.line, odd_die_bonus=odd_die_bonus)
    if isinstance(tree, FiveByFive):
        return (1, 6) if tree.value == -5 else (1, 36)
    return _sum_bounds(tree.terms, odd_die_bonus)


def _sum_bounds(terms: tuple[Term, ...], odd: bool) -> tuple[int, int]:
    low = high = 0
    for term in terms:
        least, most = _node_bounds(term.node, odd)
        if term.sign < 0:
            least, most = -most, -least
        low += least
        high += most
    return low, high


def _node_bounds(node: Node, odd: bool) -> tuple[int, int]:
    if isinstance(node, Constant):
        return node.value, node.value
    if isinstance(node, Dice):
        least, most = _die_bounds(node)
        return node.kept * least, node.kept * most
    if isinstance(node, Group):
        return _sum_bounds(node.terms, odd)
    if isinstance(node, Product):
        a, b = _node_bounds(node.left, odd)
        c, d = _node_bounds(node.right, odd)
        if node.op == "*":
            corners = [a * c, a * d, b * c, b * d]
        else:  # the divisor never spans 0, so the extremes sit at the corners
            corners = [x // y for x in (a, b) for y in (c, d) if y]
        return min(corners), max(corners)
    _, kept, bonus = ten_dice(node.rolled, node.kept, odd_die_bonus=odd)
    return kept + bonus, kept * L5R_SIDES * (1 if node.unskilled else MAX_CHAIN) + bonus


def _die_bounds(node: Dice) -> tuple[int, int]:
    """The least and most one die of the group adds (its chain's total, or its successes)."""
    low, counts, _ = _throw(node)
    shown = range(low, low + len(counts))
    exploding = [face for face in shown if node.explodes(face)]
    extra = _explode_throws(node) - 1
    if node.success is not None and not node.compound:
        values = [node.counted(face) for face in shown]
        boom = [node.counted(face) for face in exploding] or [0]
        return min(values) + extra * min(0, min(boom)), max(values) + extra * max(0, max(boom))
    boom = exploding or [0]
    least, most = shown[0] + extra * min(0, min(boom)), shown[-1] + extra * max(0, max(boom))
    if node.success is not None:  # compound: the chain's total meets the conditions or not
        return (-1 if node.failure is not None else 0), 1
    return least, most


# ---------------------------------------------------------------------------------------------------
# Rendering
# ---------------------------------------------------------------------------------------------------


def _face_text(face: int, fudge: bool) -> str:
    return f"{face:+d}" if fudge and face else str(face)


def _die_text(die: DieRoll, fudge: bool = False) -> str:
    parts = []
    for n, face in enumerate(die.faces):
        aside = die.rerolled[n] if die.rerolled else ()
        parts.append("".join(f"~{_face_text(f, fudge)}~" for f in aside) + _face_text(face, fudge))
    text = "+".join(parts)
    return text if die.kept else f"({text})"


def _term_text(term: TermRoll) -> str:
    node = term.term.node
    label = f" ({term.term.label})" if term.term.label else ""
    if isinstance(node, Constant):
        return str(node.value) + label
    if isinstance(node, Group):
        return f"({_terms_text(term.parts)}){label}"
    if isinstance(node, Product):
        left, right = term.parts
        return f"{_term_text(left)} {node.op} {_term_text(right)}{label}"
    name = _node_notation(node)
    if isinstance(node, RollKeep) and (term.rolled, term.kept) != (node.rolled, node.kept):
        name += f" as {term.rolled}k{term.kept}" + (f"+{term.bonus}" if term.bonus else "")
    elif isinstance(node, RollKeep) and term.bonus:
        name += f"+{term.bonus}"
    fudge = isinstance(node, Dice) and node.fudge
    return f"{name} [{', '.join(_die_text(die, fudge) for die in term.dice)}]{label}"


def _terms_text(terms: tuple[TermRoll, ...]) -> str:
    parts = []
    for n, term in enumerate(terms):
        text = _term_text(term)
        if term.term.sign < 0:
            parts.append(f"- {text}" if n else f"-{text}")
        else:
            parts.append(f"+ {text}" if n else text)
    return " ".join(parts)


def render_text(result: RollResult) -> str:
    """One line for the roll log: each term with its faces, dropped dice in brackets, then the total."""
    if isinstance(result, RepeatRoll):
        comment = f" # {result.repeat.comment}" if result.repeat.comment else ""
        rolls = "; ".join(render_text(each) for each in result.rolls)
        return f"{result.repeat.count}x: {rolls}{comment}"
    if isinstance(result, FiveByFiveRoll):
        faces = ", ".join(str(face) for face in result.dice)
        shown = f"{to_notation(dataclasses.replace(result.check, comment=''))}: [{faces}] "
        shown += "trump" if result.trump else f"= {result.total}"
        shown += ", success" if result.success else ", failure"
        shown += ", doubles" if result.doubles else ""
        return shown + (f" # {result.check.comment}" if result.check.comment else "")
    shown = f"{_terms_text(result.terms)} = {result.total}"
    if result.expression.target is not None:
        shown += f" vs {result.expression.target}: {'success' if result.success else 'failure'}"
    elif result.success is not None:
        shown += f": {'success' if result.success else 'failure'}"
    return shown + (f" # {result.expression.comment}" if result.expression.comment else "")


def render_data(result: RollResult) -> dict:
    """The same roll as plain JSON-ready data: terms with every die's faces and flags, and the total.

    Labels ("label"), comments ("comment"), rerolled faces ("rerolled") and per-die successes
    ("successes") appear only when the line has them, so plain lines keep their old shape.
    """
    if isinstance(result, RepeatRoll):
        rolls = [render_data(each) for each in result.rolls]
        data = {
            "kind": "repeat",
            "notation": to_notation(result.repeat),
            "count": result.repeat.count,
            "rolls": rolls,
            # one group per roll, so a reader that only knows terms still shows every die
            "terms": [
                {
                    "kind": "roll",
                    "notation": to_notation(dataclasses.replace(result.repeat.line, comment="")),
                    "sign": 1,
                    "dice": [die for term in each["terms"] for die in term["dice"]],
                    "bonus": 0,
                    "value": each["total"],
                }
                for each in rolls
            ],
            "totals": [each["total"] for each in rolls],
            "total": None,
            "target": getattr(result.repeat.line, "target", None),
            "success": None,
            "outcome": result.outcome.value,
        }
        if result.repeat.comment:
            data["comment"] = result.repeat.comment
        return data
    if isinstance(result, FiveByFiveRoll):
        data = {
            "kind": "five_by_five",
            "notation": to_notation(dataclasses.replace(result.check, comment="")),
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
            "outcome": result.outcome.value,
        }
        if result.check.comment:
            data["comment"] = result.check.comment
        return data
    data = {
        "kind": "expression",
        "notation": to_notation(dataclasses.replace(result.expression, comment="")),
        "terms": [_term_data(term) for term in result.terms],
        "total": result.total,
        "target": result.expression.target,
        "success": result.success,
        "outcome": result.outcome.value,
    }
    if result.expression.comment:
        data["comment"] = result.expression.comment
    return data


def _die_data(die: DieRoll) -> dict:
    data = {"faces": list(die.faces), "total": die.total, "kept": die.kept, "exploded": die.exploded}
    if die.rerolled:
        data["rerolled"] = [list(aside) for aside in die.rerolled]
    if die.successes is not None:
        data["successes"] = die.successes
    return data


_KINDS = {Constant: "constant", Dice: "dice", RollKeep: "roll_keep", Group: "group", Product: "product"}


def _term_data(term: TermRoll) -> dict:
    node = term.term.node
    data = {
        "kind": _KINDS[type(node)],
        "notation": _node_notation(node),
        "sign": term.term.sign,
        "dice": [_die_data(die) for die in term.dice],
        "bonus": term.bonus,
        "value": term.value,
    }
    if term.parts:
        data["parts"] = [_term_data(part) for part in term.parts]
        data["dice"] = [die for part in data["parts"] for die in part["dice"]]  # for readers of flat terms
    if term.term.label:
        data["label"] = term.term.label
    if isinstance(node, RollKeep):
        data.update(rolled=term.rolled, kept=term.kept, unskilled=node.unskilled)
    return data


# ---------------------------------------------------------------------------------------------------
# Exact odds. A distribution is (lowest total, ways for each total from there up, ways in all).
#
# Adding independent totals multiplies their generating polynomials; Kronecker substitution packs
# each polynomial's integer coefficients into one Python int, wide enough that no slot can carry
# into the next, so one big-integer multiplication does the whole convolution. Plain dice (no
# modifiers) have a closed form besides: the ways n dice of s sides stay at or under m are a short
# alternating sum of binomials, so the chance of a sum of plain dice needs no distribution at all.
#
# Every step estimates its cost before it runs and charges it to a meter; past the budget it raises
# NotExact, and chance() says None. The costs were measured on a slow machine shared by several test
# runs (Python 3.11's Karatsuba squared a 250,000-bit integer in 15 to 30 ms there), and the budget
# leaves room for the estimates' error, so a line stays under 50 ms; bench/odds.py times the worst.
# ---------------------------------------------------------------------------------------------------

_BUDGET_MS = 30.0  # estimated work for one line's chance or distribution
_MAX_PACKED_BITS = 600_000  # the largest packed polynomial built at all
_MAX_SUPPORT = 5_000  # totals in one distribution (each becomes a Fraction for the reader)
_MAX_DENOMINATOR_BITS = 12_000  # keeps str(chance) under Python's 4,300-digit limit
_MAX_SPLIT = 64  # totals of a line's other terms that the closed form is evaluated at

Dist = tuple[int, list[int], int]

_spent: ContextVar[float | None] = ContextVar("dice_box_odds_spent", default=None)


def _charge(ms: float) -> None:
    """Book estimated work against the running meter; with no meter running (tests), nothing is booked."""
    spent = _spent.get()
    if spent is None:
        return
    if spent + ms > _BUDGET_MS:
        raise NotExact("the exact figure would take too long")
    _spent.set(spent + ms)


def _multiplication_ms(bits_a: int, bits_b: int) -> float:
    """Karatsuba's cost: (n/250,000)**1.585 * 30 ms for two n-bit numbers, linear in the longer one."""
    small, big = max(1, min(bits_a, bits_b)), max(bits_a, bits_b)
    return 30.0 * (big / small) * (small / 250_000) ** 1.585 + big / 5_000_000


def _slots_ms(length: int) -> float:
    """Packing and unpacking cost about two microseconds a slot, whatever its width."""
    return length / 500


def _metered(compute):
    """Run one chance or distribution with a fresh meter (a ContextVar: safe across threads)."""
    token = _spent.set(0.0)
    try:
        return compute()
    finally:
        _spent.reset(token)


def _width(bound: int) -> int:
    """Bytes per slot for coefficients up to ``bound``."""
    return bound.bit_length() // 8 + 1


def _pack(counts: list[int], width: int) -> int:
    return int.from_bytes(b"".join(c.to_bytes(width, "little") for c in counts), "little")


def _unpack(value: int, width: int, length: int) -> list[int]:
    raw = value.to_bytes(width * length, "little")
    return [int.from_bytes(raw[k : k + width], "little") for k in range(0, width * length, width)]


def _check_size(length: int, width: int) -> None:
    if length > _MAX_SUPPORT:
        raise NotExact(f"more than {_MAX_SUPPORT:,} totals")
    if length * width * 8 > _MAX_PACKED_BITS:
        raise NotExact("the exact counts grow too large")


def _multiply(a: list[int], b: list[int]) -> list[int]:
    """The convolution of two coefficient lists, by one multiplication of packed integers."""
    if len(a) == 1 or len(b) == 1:
        (scalar,), other = (a, b) if len(a) == 1 else (b, a)
        return [scalar * c for c in other]
    length = len(a) + len(b) - 1
    width = _width(max(min(max(a) * sum(b), sum(a) * max(b)), max(a), max(b)))
    _check_size(length, width)
    _charge(_multiplication_ms(len(a) * width * 8, len(b) * width * 8) + _slots_ms(length))
    return _unpack(_pack(a, width) * _pack(b, width), width, length)


def _power(a: list[int], n: int) -> list[int]:
    """``a`` convolved with itself ``n`` times: one packed integer raised to the n-th power."""
    if n == 1 or len(a) == 1:
        return [c**n for c in a]
    length = n * (len(a) - 1) + 1
    width = _width(max(a) * sum(a) ** (n - 1))
    _check_size(length, width)
    bits = length * width * 8
    # repeated squaring: the last squaring (of half the result) is the bulk, the earlier ones a half more
    _charge((1.0 if n == 2 else 1.6) * _multiplication_ms(bits // 2, bits // 2) + _slots_ms(length))
    return _unpack(_pack(a, width) ** n, width, length)


def _convolve_naive(a: list[int], b: list[int]) -> list[int]:
    """The schoolbook convolution, for tests to hold the packed one against."""
    out = [0] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            out[i + j] += x * y
    return out


def _check_denominator(denominator: int) -> None:
    if denominator.bit_length() > _MAX_DENOMINATOR_BITS:
        raise NotExact("the exact chance has too many digits")


def _trimmed(low: int, counts: list[int], total: int) -> Dist:
    start = next(n for n, c in enumerate(counts) if c)
    end = len(counts) - next(n for n, c in enumerate(reversed(counts)) if c)
    return low + start, counts[start:end], total


def _from_ways(ways: dict[int, int], total: int) -> Dist:
    low, high = min(ways), max(ways)
    if high - low + 1 > _MAX_SUPPORT:
        raise NotExact(f"more than {_MAX_SUPPORT:,} totals")
    counts = [0] * (high - low + 1)
    for value, count in ways.items():
        counts[value - low] += count
    return _trimmed(low, counts, total)


def _add(x: Dist, y: Dist) -> Dist:
    total = x[2] * y[2]
    _check_denominator(total)
    return x[0] + y[0], _multiply(x[1], y[1]), total


def _negate(x: Dist) -> Dist:
    return -(x[0] + len(x[1]) - 1), x[1][::-1], x[2]


def _combine(x: Dist, y: Dist, op: str) -> Dist:
    """``x * y`` or ``x / y`` (rounded down) of two independent totals."""
    xs = [(x[0] + n, c) for n, c in enumerate(x[1]) if c]
    ys = [(y[0] + n, c) for n, c in enumerate(y[1]) if c]
    _charge(len(xs) * len(ys) / 1_000)  # about a microsecond a pair
    total = x[2] * y[2]
    _check_denominator(total)
    ways: dict[int, int] = {}
    for a, m in xs:
        for b, n in ys:
            value = a * b if op == "*" else a // b
            ways[value] = ways.get(value, 0) + m * n
    return _from_ways(ways, total)


def _die_counts(node: Dice, *, per_face: bool) -> Dist:
    """One die of the group: its chain's total, or (``per_face``) the successes its faces count."""
    low, counts, total = _throw(node)
    shown = range(low, low + len(counts))

    def mapped(faces) -> dict[int, int]:
        ways: dict[int, int] = {}
        for face in faces:
            if counts[face - low]:
                value = node.counted(face) if per_face else face
                ways[value] = ways.get(value, 0) + counts[face - low]
        return ways

    if not node.explode:
        return _from_ways(mapped(shown), total)
    throws = _explode_throws(node)
    boom = _from_ways(mapped([face for face in shown if node.explodes(face)]), 1)
    stay = _from_ways(mapped([face for face in shown if not node.explodes(face)]), 1)
    whole = _from_ways(mapped(shown), 1)
    # T(1) = any face; T(c) = a face that stays, then nothing more (scaled to the common
    # denominator), or an exploding face followed by a chain of at most c-1 throws. Kept packed
    # throughout: every coefficient stays below total**throws, so no slot ever overflows.
    mass = total**throws
    _check_denominator(mass)
    width = _width(mass)
    _check_size(throws * len(whole[1]), width)
    bits = 8 * width
    _charge(
        throws * _multiplication_ms(throws * len(whole[1]) * bits // 2, len(boom[1]) * bits)
        + _slots_ms(throws * len(whole[1]))
    )
    packed_boom, packed_stay = _pack(boom[1], width), _pack(stay[1], width)
    chain, chain_low = _pack(whole[1], width), whole[0]
    for c in range(2, throws + 1):
        grown, grown_low = packed_boom * chain, boom[0] + chain_low
        ended, ended_low = packed_stay * total ** (c - 1), stay[0]
        base = min(grown_low, ended_low)
        chain = (grown << (grown_low - base) * bits) + (ended << (ended_low - base) * bits)
        chain_low = base
    length = max(1, -(-chain.bit_length() // bits))
    return _trimmed(chain_low, _unpack(chain, width, length), mass)


def _keep_ways(per_die: Dist, node: Dice, *, cap: int | None = None) -> Dist:
    """Keep the best (or worst) of the group's dice, adding their totals or their successes.

    Walks the die's totals from the first kept end, choosing how many dice show each: once the
    kept dice are all placed, the rest need only fall on the far side (the L5R engine's method).
    """
    n, k = node.count, node.kept
    low, counts, total = per_die
    values = [(low + i, c) for i, c in enumerate(counts) if c]
    if node.keep is Keep.HIGHEST:
        values.reverse()
    contribution = node.counted if node.success is not None else (lambda v: v)
    if node.success is not None:
        # neighbouring totals that count the same are one step: ties keep the same successes
        runs: list[tuple[int, int]] = []
        for v, weight in values:
            gain = contribution(v)
            if runs and contribution(runs[-1][0]) == gain:
                runs[-1] = (runs[-1][0], runs[-1][1] + weight)
            else:
                runs.append((v, weight))
        values = runs
    gains = [contribution(v) for v, _ in values]
    spread = max(gains) - min(gains)
    steps = len(values) * sum((j * spread + 2) * (k - j) for j in range(k)) + k * k
    _charge(steps / 1_000)  # about a microsecond a step
    _check_denominator(total**n)
    binomials = [[math.comb(n - j, c) for c in range(k - j)] for j in range(k)]
    layers: list[dict[int, int]] = [{} for _ in range(k)]
    layers[0][0] = 1
    ways: dict[int, int] = {}
    rest = total
    for (_, weight), gain in zip(values, gains, strict=True):
        below = rest - weight
        powers = [weight**c for c in range(k)]
        lowest = n - k + 1  # the fewest free dice left once fewer than need show this value
        below_powers = {lowest: below**lowest}
        for e in range(lowest + 1, n + 1):
            below_powers[e] = below_powers[e - 1] * below
        new_layers: list[dict[int, int]] = [{} for _ in range(k)]
        for j, layer in enumerate(layers):
            if not layer:
                continue
            free, need = n - j, k - j
            # c of the free dice show this value, comb(free, c) ways to pick them; with need or more
            # the kept dice are all placed and the rest fall beyond. Those moves add up to one weight:
            # every way for the free dice to fall here or beyond, rest**free, less the fewer-than-need
            row = binomials[j]
            moves = [(c, row[c] * powers[c]) for c in range(1, need)]
            finish = rest**free - sum(row[c] * powers[c] * below_powers[free - c] for c in range(need))
            for s, count in layer.items():
                new_layers[j][s] = new_layers[j].get(s, 0) + count
                for c, weight_c in moves:
                    target = new_layers[j + c]
                    s2 = s + c * gain if cap is None else min(s + c * gain, cap)
                    target[s2] = target.get(s2, 0) + count * weight_c
                if finish:
                    s2 = s + need * gain if cap is None else min(s + need * gain, cap)
                    ways[s2] = ways.get(s2, 0) + count * finish
        layers = new_layers
        rest = below
    return _from_ways(ways, total**n)


def _dice_dist(node: Dice) -> Dist:
    keeps_some = node.keep is not None and node.keep_count < node.count
    per_face = node.success is not None and not node.compound
    if keeps_some and per_face and node.explode:
        raise NotExact("keeping exploding dice that count each face")
    # keeping looks at each die's total; the successes are counted from the kept totals
    if node.count * (_die_mass(node).bit_length() - 1) > _MAX_DENOMINATOR_BITS:
        raise NotExact("the exact chance has too many digits")
    per_die = _die_counts(node, per_face=per_face and not keeps_some)
    if keeps_some:
        return _keep_ways(per_die, node)
    if node.success is not None and node.compound:
        ways: dict[int, int] = {}
        for n, c in enumerate(per_die[1]):
            if c:
                value = node.counted(per_die[0] + n)
                ways[value] = ways.get(value, 0) + c
        per_die = _from_ways(ways, per_die[2])
    _check_denominator(per_die[2] ** node.count)
    return per_die[0] * node.count, _power(per_die[1], node.count), per_die[2] ** node.count


@lru_cache(maxsize=128)
def _node_dist(node: Node) -> Dist:
    """Cached: a table rolls the same few lines all night. Callers must not change the lists."""
    if isinstance(node, Constant):
        return node.value, [1], 1
    if isinstance(node, Dice):
        return _dice_dist(node)
    if isinstance(node, Group):
        return _sum_dist(node.terms)
    if isinstance(node, Product):
        left, right = _node_dist(node.left), _node_dist(node.right)
        if len(right[1]) == 1 and node.op == "*" and right[0] >= 0:
            # times a sure number (a constant, or dice that always count the same): spread the totals
            factor, weight = right[0], right[1][0]
            if factor == 0:
                return 0, [sum(left[1]) * weight], left[2] * right[2]
            if (len(left[1]) - 1) * factor + 1 > _MAX_SUPPORT:
                raise NotExact(f"more than {_MAX_SUPPORT:,} totals")
            spread = [0] * ((len(left[1]) - 1) * factor + 1)
            spread[::factor] = [c * weight for c in left[1]]
            return left[0] * factor, spread, left[2] * right[2]
        return _combine(left, right, node.op)
    raise NotExact("roll and keep dice have only their chance against a TN worked out")


def _sum_dist(terms: tuple[Term, ...]) -> Dist:
    """The sum of terms; alike groups of dice are merged first, so 20 terms of 1d600 are one power."""
    merged: Counter = Counter()
    others: list[Term] = []
    for term in terms:
        node = term.node
        if isinstance(node, Dice) and (node.keep is None or node.keep_count >= node.count):
            merged[(term.sign, dataclasses.replace(node, count=1, keep=None, keep_count=0))] += node.count
        else:
            others.append(term)
    parts = []
    for (sign, die), count in merged.items():
        parts.append((sign, _node_dist(dataclasses.replace(die, count=count))))
    for term in others:
        parts.append((term.sign, _node_dist(term.node)))
    parts.sort(key=lambda part: len(part[1][1]))
    out: Dist = (0, [1], 1)
    for sign, dist in parts:
        out = _add(out, dist if sign > 0 else _negate(dist))
    return out


def _is_plain(node: Node) -> bool:
    return (
        isinstance(node, Dice)
        and (node.keep is None or node.keep_count >= node.count)
        and not node.explode
        and node.reroll is None
        and node.minimum is None
        and node.maximum is None
        and node.success is None
    )


def _plain_tail(plain: list[tuple[int, int]], rest: Dist, threshold: int) -> Fraction:
    """P(Y + rest >= threshold) where Y adds n dice of s faces 0..s-1 for each (n, s) in ``plain``.

    (1 + x + ... + x^(s-1))^n = (1 - x^s)^n / (1 - x)^n, so the ways for Y <= m are
    sum over the numerator's terms a*x^e (e <= m) of a * C(m - e + N, N), N the number of dice.
    """
    dice = sum(n for n, _ in plain)
    most = sum(n * (s - 1) for n, s in plain)
    outcomes = math.prod(s**n for n, s in plain)
    _check_denominator(outcomes * rest[2])
    points = [(rest[0] + i, c) for i, c in enumerate(rest[1]) if c]
    if len(points) > _MAX_SPLIT:
        raise NotExact("too many totals to split on")

    def mirrored(m: int) -> tuple[int, bool]:
        # Y and most - Y have the same distribution: walk whichever side has fewer terms
        return (most - 1 - m, True) if m > most - 1 - m else (m, False)

    wanted = []
    for value, _ in points:
        m = threshold - value - 1  # ways that fall short: Y <= m
        if 0 <= m < most:
            wanted.append(mirrored(m)[0])
    reach = max(wanted, default=-1)
    numerator: dict[int, int] = {0: 1}
    by_sides: Counter = Counter()
    for n, s in plain:
        by_sides[s] += n
    for s, n in by_sides.items():
        factor = {s * k: (-1) ** k * math.comb(n, k) for k in range(n + 1) if s * k <= reach}
        _charge(len(numerator) * len(factor) / 1_000)  # about a microsecond a pair
        new: dict[int, int] = {}
        for e1, a1 in numerator.items():
            for e2, a2 in factor.items():
                if e1 + e2 <= reach:
                    new[e1 + e2] = new.get(e1 + e2, 0) + a1 * a2
        numerator = {e: a for e, a in new.items() if a}
        if len(numerator) * len(wanted) > _MAX_SUPPORT:
            raise NotExact("the closed form has too many terms")
    terms = sorted(numerator.items())
    # Measured costs on a slow machine: math.comb(m, N) takes about (N/30)**2 microseconds; walking
    # from C(top + gap, N) to C(top, N) takes about gap * N / 150. Each step takes the cheaper road,
    # and the meter stops the walk once the estimate passes the budget.
    comb_cost = 1 + (dice / 30) ** 2

    def at_most(m: int) -> int:
        acc = 0
        previous = None
        binomial = 0
        for e, a in terms:
            if e > m:
                break
            top = m - e + dice
            walk_cost = math.inf if previous is None else 1 + (previous - top) * dice / 150
            _charge(min(comb_cost, walk_cost) / 1_000)
            if walk_cost < comb_cost:  # C(top, N) from C(previous, N): a product over the gap
                binomial = (binomial * math.prod(range(top + 1 - dice, previous + 1 - dice))) // math.prod(
                    range(top + 1, previous + 1)
                )
            else:
                binomial = math.comb(top, dice)
            previous = top
            acc += a * binomial
        return acc

    reached = 0
    for value, count in points:
        m = threshold - value - 1
        if m < 0:
            short = 0
        elif m >= most:
            short = outcomes
        else:
            point, flipped = mirrored(m)
            short = outcomes - at_most(point) if flipped else at_most(point)
        reached += count * (outcomes - short)
    return Fraction(reached, outcomes * rest[2])


def _expression_chance(tree: Expression, threshold: int) -> Fraction:
    plain: list[tuple[int, int]] = []
    shift = 0
    others: list[Term] = []
    for term in tree.terms:
        node = term.node
        if isinstance(node, Constant):
            shift += term.sign * node.value
        elif _is_plain(node):
            sides = node.high - node.low + 1
            # a die reads low-1 more than a face counted from 0; minus a die is sides-1 minus another
            if term.sign > 0:
                shift += node.count * node.low
            else:
                shift -= node.count * node.high
            plain.append((node.count, sides))
        else:
            others.append(term)
    if plain:
        try:
            rest = _sum_dist(tuple(others)) if others else (0, [1], 1)
            return _plain_tail(plain, (rest[0] + shift, rest[1], rest[2]), threshold)
        except NotExact:
            pass  # the distribution may still be small enough to build, and the meter has room
    if _cappable(tree):
        return _capped_chance(tree, threshold)
    return _tail(_sum_dist(tree.terms), threshold)


# A line whose every term adds something never negative needs only P(total >= target): totals at or
# past what is still missing can be merged into one, at every step (a die's chain, its group, the
# sum). That keeps exploding pools small whatever their chains' length; the denominators stay exact.


def _cappable(tree: Expression) -> bool:
    for term in tree.terms:
        node = term.node
        if isinstance(node, Constant):
            continue
        if term.sign < 0 or not isinstance(node, Dice) or node.fudge or node.failure is not None:
            return False
        if node.success is not None and (node.compound or node.keep is not None):
            return False  # a success count of a whole chain, or of kept dice, is not monotone in it
        if node.minimum is not None and node.minimum < 0:
            return False
    return True


def _lump(dist: Dist, cap: int) -> Dist:
    """Totals at or past ``cap`` merged into ``cap``."""
    low, counts, total = dist
    _charge(_slots_ms(len(counts)))
    if low >= cap:
        return cap, [sum(counts)], total
    cut = cap - low
    if len(counts) <= cut + 1:
        return dist
    return low, counts[:cut] + [sum(counts[cut:])], total


def _mix(x: Dist, y: Dist) -> Dist:
    """Two parts of one distribution (the same denominator) put together."""
    low = min(x[0], y[0])
    counts = [0] * (max(x[0] + len(x[1]), y[0] + len(y[1])) - low)
    _charge(_slots_ms(len(counts)))
    for start, part in ((x[0], x[1]), (y[0], y[1])):
        for n, c in enumerate(part):
            counts[start - low + n] += c
    return low, counts, x[2]


def _capped_die(node: Dice, cap: int, per_face: bool) -> Dist:
    low, counts, total = _throw(node)
    shown = range(low, low + len(counts))

    def part(faces) -> Dist:
        ways: dict[int, int] = {}
        for face in faces:
            if counts[face - low]:
                value = node.counted(face) if per_face else face
                ways[value] = ways.get(value, 0) + counts[face - low]
        return _lump(_from_ways(ways, 1), cap)

    whole = part(shown)
    if not node.explode:
        return whole[0], whole[1], total
    throws = _explode_throws(node)
    mass = total**throws
    _check_denominator(mass)
    boom = part([face for face in shown if node.explodes(face)])
    stay = part([face for face in shown if not node.explodes(face)])
    chain = whole
    for c in range(2, throws + 1):  # as in _die_counts, merging past the cap at each throw
        grown = _lump((boom[0] + chain[0], _multiply(boom[1], chain[1]), 1), cap)
        scale = total ** (c - 1)
        chain = _lump(_mix(grown, (stay[0], [w * scale for w in stay[1]], 1)), cap)
    return chain[0], chain[1], mass


def _capped_sum(x: Dist, y: Dist, cap: int) -> Dist:
    return _lump(_add(x, y), cap)


def _capped_dice(node: Dice, cap: int) -> Dist:
    per_face = node.success is not None
    per_die = _capped_die(node, cap, per_face)
    if node.keep is not None and node.keep_count < node.count:
        return _keep_ways(per_die, node, cap=cap)
    out: Dist = (0, [1], 1)
    power, n = per_die, node.count
    while n:  # square and multiply, merging past the cap after every product
        if n & 1:
            out = _capped_sum(out, power, cap)
        n >>= 1
        if n:
            power = _capped_sum(power, power, cap)
    return out


def _die_mass(node: Dice) -> int:
    """The denominator of one die of the group: a throw's, raised to the chain's longest."""
    return _throw(node)[2] ** _explode_throws(node)


def _capped_chance(tree: Expression, threshold: int) -> Fraction:
    cap = threshold - sum(t.sign * t.node.value for t in tree.terms if isinstance(t.node, Constant))
    if cap <= 0:
        return Fraction(1)  # nothing in the line is negative
    dice = [t.node for t in tree.terms if isinstance(t.node, Dice)]
    if sum(node.count * _die_mass(node).bit_length() for node in dice) > _MAX_DENOMINATOR_BITS:
        raise NotExact("the exact chance has too many digits")
    merged: Counter = Counter()
    kept: list[Dice] = []
    for term in tree.terms:
        node = term.node
        if isinstance(node, Dice):
            if node.keep is None or node.keep_count >= node.count:
                merged[dataclasses.replace(node, count=1, keep=None, keep_count=0)] += node.count
            else:
                kept.append(node)
    out: Dist = (0, [1], 1)
    for die, count in merged.items():
        out = _capped_sum(out, _capped_dice(dataclasses.replace(die, count=count), cap), cap)
    for node in kept:
        out = _capped_sum(out, _capped_dice(node, cap), cap)
    return _tail(out, cap)


def _tail(dist: Dist, threshold: int) -> Fraction:
    low, counts, total = dist
    return Fraction(sum(counts[max(0, threshold - low) :]), total)


_L5R_BUDGET_MS = 40.0


def _l5r_ms(node: RollKeep, target: int, odd_die_bonus: bool) -> float:
    """The L5R engine's cold cost, measured: 10k10 takes 200 ms at TN 250, 37 ms at 125, growing as
    TN**2.6 and with the dice (this bound is above every pool's measured cost). Its answers are
    cached, but a fresh TN is cold, and the dice box must answer within 50 ms."""
    rolled, kept, bonus = ten_dice(node.rolled, node.kept, odd_die_bonus=odd_die_bonus)
    reach = max(0, target - bonus)
    return 200.0 * (reach / 250) ** 2.6 * min(1.0, rolled * kept / 50)


def _threshold(tree: Expression) -> int | None:
    if tree.target is not None:
        return tree.target
    return 1 if counts_successes(tree) else None


def _roll_keep_line(tree: Expression) -> tuple[RollKeep, int] | None:
    """A line that is one L5R pool plus constants: (the pool, the constants' sum); else None."""
    constant = sum(t.sign * t.node.value for t in tree.terms if isinstance(t.node, Constant))
    groups = [t for t in tree.terms if not isinstance(t.node, Constant)]
    if len(groups) == 1 and isinstance(groups[0].node, RollKeep) and groups[0].sign > 0:
        return groups[0].node, constant
    return None


def _highest_quick_tn(node: RollKeep, constant: int, odd_die_bonus: bool) -> int:
    """The highest target the L5R engine answers for this pool within its budget (see _l5r_ms) and
    its own bound on the TN less the bonuses."""
    rolled, kept, bonus = ten_dice(node.rolled, node.kept, odd_die_bonus=odd_die_bonus)
    scale = min(1.0, rolled * kept / 50)
    reach = min(L5R_MAX_TARGET, int(250 * (_L5R_BUDGET_MS / (200.0 * scale)) ** (1 / 2.6)))
    while reach > 0 and _l5r_ms(node, reach + bonus, odd_die_bonus) > _L5R_BUDGET_MS:
        reach -= 1  # the float root may land a step past the bound
    return reach + bonus + constant


def _exact_chance(tree: Tree, odd_die_bonus: bool) -> Fraction | None:
    """chance(), raising RulesError (NotExact included) where the figure is out of reach."""
    if isinstance(tree, FiveByFive):
        return five_by_five_chance(tree.value, doubles_token=tree.doubles_token)
    if isinstance(tree, Repeat):
        return None
    threshold = _threshold(tree)
    if threshold is None:
        return None
    pool = _roll_keep_line(tree)
    if pool is not None:
        node, constant = pool
        if _l5r_ms(node, threshold - constant, odd_die_bonus) > _L5R_BUDGET_MS:
            raise NotExact("the L5R engine would take too long at this TN")
        return l5r_chance(
            node.rolled,
            node.kept,
            threshold,
            explode=not node.unskilled,
            bonus=constant,
            odd_die_bonus=odd_die_bonus,
        )
    return _metered(lambda: _expression_chance(tree, threshold))


def chance(tree: Tree, *, odd_die_bonus: bool = False) -> Fraction | None:
    """The exact chance (a Fraction) that a line succeeds: meets its target, or scores a success.

    None without a target or success count, for a repeated line (each roll has its own outcome),
    and when the exact figure is out of reach within the time bound (see :class:`NotExact`).
    """
    try:
        return _exact_chance(tree, odd_die_bonus)
    except RulesError:  # NotExact included
        return None


def rolled_chance(tree: Tree, text: str, *, odd_die_bonus: bool = False) -> Fraction | None:
    """The exact chance of a line about to be rolled; refuses a line whose chance is out of reach.

    The dice box rolls nothing it cannot give the exact odds of: a line with a target or a success
    count whose chance would take longer than the time bound raises NotationLimitError, pointing at
    the target (``text`` is the line as typed, for the message). None only where a line has no single
    chance (no target, or repeated).
    """
    try:
        return _exact_chance(tree, odd_die_bonus)
    except RulesError as error:
        body = text.split("#", 1)[0]
        at = body.rfind("vs") if getattr(tree, "target", None) is not None else -1
        index = at if at >= 0 else 0
        pool = _roll_keep_line(tree) if isinstance(tree, Expression) else None
        if pool is not None:
            node, constant = pool
            highest = _highest_quick_tn(node, constant, odd_die_bonus)
            name = f"{node.rolled}k{node.kept}"
            raise NotationLimitError(
                f"A TN past {highest} for {name}",
                text=text,
                index=index,
                hint=f"its exact chance is worked out against a TN up to {highest}",
            ) from error
        raise NotationLimitError(
            "An exact chance out of reach",
            text=text,
            index=index,
            hint=f"{error}; roll fewer or smaller dice, or a nearer target",
        ) from error


@dataclass(frozen=True)
class Distribution:
    """Every total a line can show with its exact chance: P(total = low + i) = counts[i] / denominator."""

    low: int
    counts: tuple[int, ...]
    denominator: int
    target: int | None  # the total that succeeds (a line's vs, or 1 for a success count)
    chance: Fraction | None  # P(total >= target)

    @property
    def high(self) -> int:
        return self.low + len(self.counts) - 1

    @cached_property
    def probabilities(self) -> dict[int, Fraction]:
        return {self.low + i: Fraction(c, self.denominator) for i, c in enumerate(self.counts) if c}

    @cached_property
    def mean(self) -> Fraction:
        return Fraction(sum((self.low + i) * c for i, c in enumerate(self.counts)), self.denominator)

    def probability(self, total: int) -> Fraction:
        i = total - self.low
        return Fraction(self.counts[i], self.denominator) if 0 <= i < len(self.counts) else Fraction(0)


def distribution(tree: Tree) -> Distribution:
    """The exact distribution of a line's total; raises NotExact where it cannot be had in time.

    A repeated line gives the distribution of one of its rolls. Roll and keep (L5R) dice, whose
    tens explode, have only their chance against a TN (:func:`chance`), and so raise NotExact too.
    """
    if isinstance(tree, Repeat):
        return distribution(tree.line)
    if isinstance(tree, FiveByFive):
        count = 1 if tree.value == -5 else 2
        ways: dict[int, int] = {}
        for faces in _faces(count):
            total = math.prod(faces)
            ways[total] = ways.get(total, 0) + 1
        low, counts, total = _from_ways(ways, 6**count)
        chance_ = five_by_five_chance(tree.value, doubles_token=tree.doubles_token)
        return Distribution(low, tuple(counts), total, None, chance_)
    low, counts, total = _metered(lambda: _sum_dist(tree.terms))
    threshold = _threshold(tree)
    chance_ = None if threshold is None else _tail((low, counts, total), threshold)
    return Distribution(low, tuple(counts), total, threshold, chance_)


def _faces(count: int):
    if count == 1:
        return [(a,) for a in range(1, 7)]
    return [(a, b) for a in range(1, 7) for b in range(1, 7)]
