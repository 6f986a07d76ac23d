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

By concern, each module importing only those above it:

* ``tree``: the limits, the errors, the frozen tree and its canonical text (:func:`to_notation`);
* ``throws``: one throw and one chain of a die, and a line's :func:`bounds`, shared by the rest;
* ``grammar``: :func:`parse`, every bound checked before a single die is thrown;
* ``evaluation``: :func:`roll`, and the results it records;
* ``rendering``: :func:`render_text` and :func:`render_data`;
* ``arithmetic``, ``distributions``, ``odds``: the exact chance within a time bound (the cost meter,
  distributions of dice, then :func:`chance`, :func:`rolled_chance` and :func:`distribution`).

This package exports what the rest of the project reads; the modules' other names are theirs.
"""

from rules.notation.evaluation import RepeatRoll, roll
from rules.notation.grammar import parse
from rules.notation.odds import (
    Distribution,
    _highest_quick_tn,  # noqa: F401 - bench/odds.py times the highest TN the dice box answers
    chance,
    distribution,
    rolled_chance,
)
from rules.notation.rendering import render_data, render_text
from rules.notation.throws import bounds
from rules.notation.tree import (
    MAX_CHAIN,
    MAX_LABEL,
    MAX_LENGTH,
    MAX_REPEAT,
    Condition,
    Constant,
    Dice,
    Expression,
    FiveByFive,
    Group,
    Keep,
    NotationError,
    NotationLimitError,
    NotExact,
    Product,
    Repeat,
    RollKeep,
    Term,
    counts_successes,
    to_notation,
)

__all__ = [
    "MAX_CHAIN",
    "MAX_LABEL",
    "MAX_LENGTH",
    "MAX_REPEAT",
    "Condition",
    "Constant",
    "Dice",
    "Distribution",
    "Expression",
    "FiveByFive",
    "Group",
    "Keep",
    "NotExact",
    "NotationError",
    "NotationLimitError",
    "Product",
    "Repeat",
    "RepeatRoll",
    "RollKeep",
    "Term",
    "bounds",
    "chance",
    "counts_successes",
    "distribution",
    "parse",
    "render_data",
    "render_text",
    "roll",
    "rolled_chance",
    "to_notation",
]
