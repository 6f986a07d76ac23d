"""What a line of dice notation is once read: the limits, the errors, the frozen tree and its canonical text.

Every other module of the package works on this tree; :func:`to_notation` writes one back as the
text that parses to it again.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from rules.dice import DiceLimitError, RulesError

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
    def drops_any(self) -> bool:
        """Whether keep (or drop) sets some of the group's dice aside."""
        return self.kept < self.count

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
        text = node_notation(term.node) + (f"[{term.label}]" if term.label else "")
        if term.sign < 0:
            parts.append(f"-{text}")
        elif n:
            parts.append(f"+{text}")
        else:
            parts.append(text)
    return "".join(parts)


def node_notation(node: Node) -> str:
    if isinstance(node, Constant):
        return str(node.value)
    if isinstance(node, RollKeep):
        return f"{'u' if node.unskilled else ''}{node.rolled}k{node.kept}"
    if isinstance(node, Group):
        return f"({_sum_notation(node.terms)})"
    if isinstance(node, Product):
        right = node_notation(node.right)
        if isinstance(node.right, Product):
            right = f"({right})"
        return f"{node_notation(node.left)}{node.op}{right}"
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
