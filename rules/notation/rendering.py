"""A rolled line described: :func:`render_text` for the roll log, :func:`render_data` for the browser."""

from __future__ import annotations

import dataclasses

from rules.notation.evaluation import DieRoll, FiveByFiveRoll, RepeatRoll, RollResult, TermRoll
from rules.notation.tree import Constant, Dice, Group, Product, RollKeep, node_notation, to_notation


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
    name = node_notation(node)
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
        "notation": node_notation(node),
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
