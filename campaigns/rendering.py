"""How a feed entry looks: its stored result turned into dice, totals and outcomes to draw
(campaigns/entry_html.py draws them).

Two result shapes reach the feed, and :func:`entry_display` reads both (anything else falls back to
the entry's one-line summary, so an unexpected shape never breaks the table):

1. The dice box, from ``rules.notation.render_data``::

       {"kind": "expression" | "five_by_five" | "repeat", "notation": "4d6kh3+2", "total": 13,
        "target": 12 | None, "success": True | False | None, "outcome": Outcome value,
        "comment": "attack",                                   # only when the line has one
        "trump": bool, "doubles": bool,                        # five_by_five only
        "rolls": [one expression or five_by_five result, ...], # repeat only ("6x 4d6kh3")
        "terms": [{"kind": "dice" | "constant" | "roll_keep" | "five_by_five", "notation": "4d6kh3",
                   "sign": 1 | -1, "bonus": 0, "value": 11, "label": "fire",  # label when given
                   "dice": [{"faces": [6, 4], "total": 10, "kept": True, "exploded": True,
                             "rerolled": [[1], []], "successes": 1}, ...]}]}  # the last two when asked

2. A sheet roll (a click on a descriptor, trait or skill)::

       {"dice": [{"face": 6, "kept": True, "exploded": False, "trump": False}, ...],
        "outcome": Outcome value ("success", "trump", "none", ...),
        "outcome_label": "hit" | "greater success" | "" (the system's own word; blank: the outcome's),
        "total": 11 | None, "changes": [str, ...], ...the system's extra keys}

   A die may carry ``"faces": [10, 7]`` instead of ``"face"`` when it exploded into a chain;
   ``kept``, ``exploded`` and ``trump`` default to True, False and False.

   A roll hidden from someone who may see its sheet (sheets.services.roll_hidden_from_sheet) saved
   nothing on the sheet; what it would change waits under :data:`PENDING` until it is applied
   (``FeedEntry.applied_at``)::

       "pending": {"before": {address: value}, "after": {address: value},  # sheets.history's addresses
                   "lines": ["Doubles token: no → yes", ...]}               # what the entry shows

The display campaigns/entry_html.py draws is::

    {"groups": [Group, ...], "rolls": [display, ...] (a repeat: one display per roll, no groups),
     "total": int | None, "outcome": str (the words shown), "outcome_value": Outcome value | "",
     "tone": one of OUTCOME_TONES' values, "notes": [str, ...], "comment": str, "show_summary": bool}
    Group = {"label": "4d6kh3", "sign": "+" | "-" | "", "bonus": int, "dice": [Die, ...],
             "constant": bool, "tag": "fire" | "", "successes": int | None (a success count)}
    Die = {"faces": [int, ...], "text": "6+4", "kept": bool, "exploded": bool, "trump": bool,
           "sides": 20 | 0 (unknown: a legacy entry, mixed or Fudge dice),
           "rerolled": [int, ...] (faces set aside), "rerolled_text": "1, 14", "successes": 1 | 0 | -1 | None,
           "css": "die die-d20 die-dropped ...", "title": "6+4, exploded", "hidden": " (exploded)" (what a
           screen reader hears after the faces)}

A chat line's ``[[1d20+5]]`` rolls become parts of its text (:func:`chat_parts`); the dice box's picture
of a line's exact distribution is campaigns/distribution.py's.

The colour comes from the outcome's value alone (:data:`OUTCOME_TONES`); an entry stored before outcomes
were typed shows its text uncoloured.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from fractions import Fraction

from rules import notation
from rules.dice import Outcome

from .cursors import cursor_for

#: The key of a sheet roll's result holding the sheet changes it has not made yet (see above).
PENDING = "pending"
MAX_DICE_SHOWN = 200  # a 1000-die roll still renders; the rest is summed in the total
MAX_OUTCOME_LABEL = 80
MAX_TAG = notation.MAX_LABEL  # a term's [label]
MAX_COMMENT = notation.MAX_LENGTH  # a line's "# comment"
MAX_REPEATS_SHOWN = notation.MAX_REPEAT

#: The colour each outcome is drawn in (the ``outcome-<tone>`` classes of static/css/app.css).
OUTCOME_TONES: dict[Outcome, str] = {
    Outcome.NONE: "plain",
    Outcome.SUCCESS: "success",
    Outcome.FAILURE: "failure",
    Outcome.TRUMP: "trump",
    Outcome.CRITICAL: "success",
    Outcome.MIXED: "mixed",
    Outcome.FUMBLE: "failure",
    Outcome.GREATER: "success",
}

#: What the feed says for an outcome a system did not word itself; blank: nothing to say (a damage sum).
OUTCOME_WORDS: dict[Outcome, str] = {
    Outcome.NONE: "",
    Outcome.SUCCESS: "success",
    Outcome.FAILURE: "failure",
    Outcome.TRUMP: "trump!",
    Outcome.CRITICAL: "critical",
    Outcome.MIXED: "mixed",
    Outcome.FUMBLE: "fumble",
    Outcome.GREATER: "greater success",
}


def _int_or_none(value) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _die(raw, sides: int = 0) -> dict | None:
    if not isinstance(raw, dict):
        return None
    faces = raw.get("faces")
    if not isinstance(faces, list):
        faces = [raw.get("face")]
    faces = [face for face in (_int_or_none(f) for f in faces) if face is not None]
    if not faces:
        return None
    exploded = bool(raw.get("exploded", len(faces) > 1))
    rerolled = _rerolled(raw.get("rerolled"))
    successes = _int_or_none(raw.get("successes"))
    return {
        "faces": faces,
        "text": "+".join(str(face) for face in faces),
        "kept": bool(raw.get("kept", True)),
        "exploded": exploded,
        "trump": bool(raw.get("trump", False)),
        # A sheet roll stores each die's sides; the dice box's come from its term (_term_sides).
        "sides": _int_or_none(raw.get("sides")) or sides,
        "rerolled": rerolled,
        "rerolled_text": ", ".join(str(face) for face in rerolled),
        # Counted only in a group that counts successes: 1 a success, -1 a failure, 0 neither.
        "successes": successes,
    }


def _rerolled(raw) -> list[int]:
    """The faces a reroll set aside, oldest first, over the whole chain (per face lists flattened)."""
    if not isinstance(raw, list):
        return []
    faces = []
    for aside in raw[:MAX_DICE_SHOWN]:
        if isinstance(aside, list):
            faces.extend(
                face for face in (_int_or_none(f) for f in aside[:MAX_DICE_SHOWN]) if face is not None
            )
    return faces[:MAX_DICE_SHOWN]


def _dice(raw_dice, *, trump: bool = False, sides: int = 0) -> list[dict]:
    """The dice a template draws; ``trump``: every die of a five-by-five roll that came up trump;
    ``sides``: the dice's sides where a die does not store its own."""
    if not isinstance(raw_dice, list):
        return []
    dice = [die for die in (_die(raw, sides) for raw in raw_dice[:MAX_DICE_SHOWN]) if die is not None]
    for die in dice:
        if trump:
            die["trump"] = True
        _mark(die)
    return dice


def _mark(die: dict) -> None:
    """A die's classes, title and words for a screen reader, worked out here once: as a dozen template
    tests per die they were most of an entry's render, on every roll's broadcast (bench/profile_roll.py)."""
    classes, said = ["die"], []
    if die["sides"] > 0:
        classes.append(f"die-d{die['sides']}")  # its shape in the feed (static/css/app.css, "Dice that land")
    if not die["kept"]:
        classes.append("die-dropped")
        said.append("dropped")
    if die["exploded"]:
        classes.append("die-exploded")
        said.append("exploded")
    if die["trump"]:
        classes.append("die-trump")
        said.append("trump")
    if die["rerolled"]:
        said.append(f"rerolled from {die['rerolled_text']}")
    successes = die["successes"] or 0
    if successes:
        classes.append("die-success" if successes > 0 else "die-failure")
    title = [die["text"], *said]
    hidden = [f" ({word})" for word in said]
    if successes:
        title.append("a success" if successes > 0 else "a failure")
        hidden.append(" (success)" if successes > 0 else " (failure)")
    die.update(css=" ".join(classes), title=", ".join(title), hidden="".join(hidden))


def _outcome_parts(value, label) -> dict:
    """The words, value and tone of a stored outcome (and the system's own word for it, if any)."""
    label = label[:MAX_OUTCOME_LABEL] if isinstance(label, str) else ""
    try:
        outcome = Outcome(value)
    except ValueError:
        # Stored before outcomes were typed: show its words as they are, uncoloured.
        text = value[:MAX_OUTCOME_LABEL] if isinstance(value, str) else ""
        return {"outcome": label or text, "outcome_value": "", "tone": OUTCOME_TONES[Outcome.NONE]}
    return {
        "outcome": label or OUTCOME_WORDS[outcome],
        "outcome_value": outcome.value,
        "tone": OUTCOME_TONES[outcome],
    }


#: The sides of the dice box's terms that name none in their notation: "3k2" throws d10s, a check d6s.
TERM_SIDES = {"roll_keep": 10, "five_by_five": 6}
DICE_SIDES = re.compile(r"\d+d(\d+)")


def _term_sides(term: dict) -> int:
    """The sides of a term's dice; 0 when unknown or mixed (a group, a product, Fudge dice)."""
    kind = term.get("kind")
    if kind in TERM_SIDES:
        return TERM_SIDES[kind]
    sides = DICE_SIDES.match(str(term.get("notation", ""))) if kind == "dice" else None
    return int(sides.group(1)) if sides else 0


def _term_group(term: dict, n: int, *, trump: bool) -> dict:
    dice = _dice(term.get("dice"), trump=trump, sides=_term_sides(term))
    counted = any(die["successes"] is not None for die in dice)
    label = term.get("label")
    return {
        "label": str(term.get("notation", "")),
        "sign": "-" if term.get("sign") == -1 else ("+" if n else ""),
        "bonus": _int_or_none(term.get("bonus")) or 0,
        "dice": dice,
        "constant": term.get("kind") == "constant",
        # The player's own name for the term ("1d8+3[fire]"), shown after it.
        "tag": label[:MAX_TAG] if isinstance(label, str) else "",
        # A group counting successes is worth their number (failures taken off), not its faces.
        "successes": _int_or_none(term.get("value")) if counted else None,
    }


def _comment(result: dict) -> str:
    comment = result.get("comment")
    return comment[:MAX_COMMENT] if isinstance(comment, str) else ""


def _notation_display(result: dict) -> dict:
    if result.get("kind") == "repeat" and isinstance(result.get("rolls"), list):
        return _repeat_display(result)
    trump = bool(result.get("trump"))
    groups = [
        _term_group(term, n, trump=trump)
        for n, term in enumerate(result.get("terms") or [])
        if isinstance(term, dict)
    ]
    notes = []
    if result.get("kind") == "five_by_five":
        if result.get("doubles"):
            notes.append("doubles")
    elif _int_or_none(result.get("target")) is not None:
        notes.append(f"vs {result['target']}")
    outcome = result.get("outcome")
    if outcome is None:
        # A dice box roll stored before it carried its outcome: its success and trump flags say it.
        success = result.get("success")
        outcome = Outcome.of(success if isinstance(success, bool) else None, trump=trump)
    return {
        "groups": groups,
        "total": _int_or_none(result.get("total")),
        **_outcome_parts(outcome, ""),
        "notes": notes,
        "comment": _comment(result),
    }


def _repeat_display(result: dict) -> dict:
    """``6x 4d6kh3``: each roll its own line with its own total and outcome; the set has neither."""
    rolls = [
        _notation_display(each)
        for each in result["rolls"][:MAX_REPEATS_SHOWN]
        if isinstance(each, dict) and each.get("kind") != "repeat" and isinstance(each.get("terms"), list)
    ]
    for each in rolls:
        each["comment"] = ""  # the repeat's comment is the line's, shown once
    return {
        "groups": [],
        "rolls": rolls,
        "total": None,
        **_outcome_parts(Outcome.NONE, ""),
        "notes": [],
        "comment": _comment(result),
    }


def _sheet_display(result: dict) -> dict:
    dice = _dice(result.get("dice"))
    return {
        "groups": [
            {
                "label": "",
                "sign": "",
                "bonus": 0,
                "dice": dice,
                "constant": False,
                "tag": "",
                "successes": None,
            }
        ],
        "total": _int_or_none(result.get("total")),
        **_outcome_parts(result.get("outcome"), result.get("outcome_label")),
        "notes": [],
        # A sheet roll's summary explains the arithmetic ("2 x 3 = 6 vs 4"); the dice box's repeats the dice.
        "show_summary": True,
    }


def entry_display(result) -> dict | None:
    """Groups of dice, total and outcome for a roll's stored result; None when the shape is unknown."""
    if not isinstance(result, dict):
        return None
    if isinstance(result.get("terms"), list):
        return _notation_display(result)
    if isinstance(result.get("dice"), list):
        return _sheet_display(result)
    return None


def format_percent(chance: Fraction | None) -> str:
    """An exact chance as the percentage a player reads: one decimal, never a false 0% or 100%."""
    if chance is None:
        return ""
    percent = float(chance) * 100
    if 0 < percent < 0.1:
        return "<0.1%"
    if 99.9 < percent < 100:
        return ">99.9%"
    return f"{percent:.1f}%"


@functools.lru_cache(maxsize=4096)  # a few hundred distinct chances, each read on every page of the feed
def chance_percent(chance: str) -> str:
    """A stored "numerator/denominator" chance as a percentage; blank when there is none."""
    if not chance:
        return ""
    try:
        return format_percent(Fraction(chance))
    except (ValueError, ZeroDivisionError):
        return ""


#: A roll inside a chat line: ``[[1d20+5]]``; the shortest match, so two rolls in a line stay two.
INLINE_ROLL = re.compile(r"\[\[(.*?)\]\]")


def chat_parts(entry) -> list[dict]:
    """A chat line cut into its text and its inline rolls, each roll with the result stored for it.

    A roll part is {"notation", "total", "tone", "summary", "cursor"}: the cursor links to the roll's own
    entry (never its seq). A ``[[...]]`` without a stored roll (a line saved before inline rolls) stays text.
    """
    request = entry.request if isinstance(entry.request, dict) else {}
    stored = request.get("inline") if isinstance(request.get("inline"), list) else []
    pieces = INLINE_ROLL.split(entry.label)
    parts = []
    for n, piece in enumerate(pieces):
        if n % 2 == 0:
            if piece:
                parts.append({"text": piece})
            continue
        roll = stored[n // 2] if n // 2 < len(stored) and isinstance(stored[n // 2], dict) else None
        seq = _int_or_none(roll.get("seq")) if roll else None
        if seq is None:
            parts.append({"text": f"[[{piece}]]"})
            continue
        parts.append(
            {
                "notation": piece,
                "total": _int_or_none(roll.get("total")),
                "tone": _outcome_parts(roll.get("outcome"), "")["tone"],
                "summary": str(roll.get("summary", ""))[:300],
                "cursor": cursor_for(entry.campaign_id, seq),
            }
        )
    return parts


def drawn_digest(drawn_from) -> str:
    """A short digest of what a part of a page was drawn from (any JSON value): the part carries it, a
    click sends it back, and the answer tells by it whether the page's part is still what a fresh one
    would be (the dice box, a sheet's roll buttons, the table's saved rolls)."""
    text = json.dumps(drawn_from, sort_keys=True, default=str)
    return hashlib.blake2b(text.encode(), digest_size=12).hexdigest()
