"""Reading a line of dice notation into a tree: :func:`parse`, or a NotationError at the first bad character.

Over 500 lines for one reason: a single recursive-descent parser whose methods share one cursor.
Every bound is checked while parsing, before a single die is thrown, so abusive input fails fast.
"""

from __future__ import annotations

import dataclasses

from rules.dice import RulesError
from rules.fivebyfive import RANKS as FIVE_BY_FIVE_RANKS
from rules.l5r import ten_dice
from rules.notation.throws import node_bounds, throw
from rules.notation.tree import (
    EXPLODING_WEIGHT,
    MAX_COUNT,
    MAX_DEPTH,
    MAX_DICE_WEIGHT,
    MAX_DIGITS,
    MAX_LABEL,
    MAX_LENGTH,
    MAX_NUMBER,
    MAX_REPEAT,
    MAX_SIDES,
    MAX_TERMS,
    MAX_TOTAL,
    REROLL_ONCE_WEIGHT,
    REROLL_WEIGHT,
    TEN_DICE,
    Condition,
    Constant,
    Dice,
    Expression,
    FiveByFive,
    Group,
    Keep,
    Node,
    NotationError,
    NotationLimitError,
    Product,
    Repeat,
    RollKeep,
    Term,
    Tree,
)

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
            low, counts, total = throw(node)
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
    return _union(node_bounds(node, False), node_bounds(node, True))
