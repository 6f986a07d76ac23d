"""How a feed entry looks: its stored result turned into dice a template can draw, and its HTML.

Two result shapes reach the feed, and :func:`entry_display` reads both (anything else falls back to
the entry's one-line summary, so an unexpected shape never breaks the table):

1. The dice box, from ``rules.notation.render_data``::

       {"kind": "expression" | "five_by_five", "notation": "4d6kh3+2", "total": 13,
        "target": 12 | None, "success": True | False | None, "outcome": Outcome value,
        "trump": bool, "doubles": bool,                        # five_by_five only
        "terms": [{"kind": "dice" | "constant" | "roll_keep" | "five_by_five", "notation": "4d6kh3",
                   "sign": 1 | -1, "bonus": 0, "value": 11,
                   "dice": [{"faces": [6, 4], "total": 10, "kept": True, "exploded": True}, ...]}]}

2. A sheet roll (a click on a descriptor, trait or skill)::

       {"dice": [{"face": 6, "kept": True, "exploded": False, "trump": False}, ...],
        "outcome": Outcome value ("success", "trump", "none", ...),
        "outcome_label": "hit" | "greater success" | "" (the system's own word; blank: the outcome's),
        "total": 11 | None, "changes": [str, ...], ...the system's extra keys}

   A die may carry ``"faces": [10, 7]`` instead of ``"face"`` when it exploded into a chain;
   ``kept``, ``exploded`` and ``trump`` default to True, False and False.

The display handed to ``templates/campaigns/_feed_entry.html`` is::

    {"groups": [{"label": "4d6kh3", "sign": "+" | "-" | "", "bonus": int, "dice": [Die, ...]}],
     "total": int | None, "outcome": str (the words shown), "outcome_value": Outcome value | "",
     "tone": one of OUTCOME_TONES' values, "notes": [str, ...], "show_summary": bool}
    Die = {"faces": [int, ...], "text": "6+4", "kept": bool, "exploded": bool, "trump": bool}

The colour comes from the outcome's value alone (:data:`OUTCOME_TONES`); an entry stored before outcomes
were typed shows its text uncoloured.
"""

from __future__ import annotations

from fractions import Fraction

from django.template.loader import render_to_string

from rules.dice import Outcome

MAX_DICE_SHOWN = 200  # a 1000-die roll still renders; the rest is summed in the total
MAX_OUTCOME_LABEL = 80

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


def _die(raw) -> dict | None:
    if not isinstance(raw, dict):
        return None
    faces = raw.get("faces")
    if not isinstance(faces, list):
        faces = [raw.get("face")]
    faces = [face for face in (_int_or_none(f) for f in faces) if face is not None]
    if not faces:
        return None
    exploded = bool(raw.get("exploded", len(faces) > 1))
    return {
        "faces": faces,
        "text": "+".join(str(face) for face in faces),
        "kept": bool(raw.get("kept", True)),
        "exploded": exploded,
        "trump": bool(raw.get("trump", False)),
    }


def _dice(raw_dice) -> list[dict]:
    if not isinstance(raw_dice, list):
        return []
    return [die for die in (_die(raw) for raw in raw_dice[:MAX_DICE_SHOWN]) if die is not None]


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


def _notation_display(result: dict) -> dict:
    groups = []
    trump = bool(result.get("trump"))
    for n, term in enumerate(result.get("terms") or []):
        if not isinstance(term, dict):
            continue
        sign = "-" if term.get("sign") == -1 else ("+" if n else "")
        dice = _dice(term.get("dice"))
        if trump:
            for die in dice:
                die["trump"] = True
        groups.append(
            {
                "label": str(term.get("notation", "")),
                "sign": sign,
                "bonus": _int_or_none(term.get("bonus")) or 0,
                "dice": dice,
                "constant": term.get("kind") == "constant",
            }
        )
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
    }


def _sheet_display(result: dict) -> dict:
    dice = _dice(result.get("dice"))
    return {
        "groups": [{"label": "", "sign": "", "bonus": 0, "dice": dice, "constant": False}],
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


def chance_percent(chance: str) -> str:
    """A stored "numerator/denominator" chance as a percentage; blank when there is none."""
    if not chance:
        return ""
    try:
        return format_percent(Fraction(chance))
    except (ValueError, ZeroDivisionError):
        return ""


def render_entry(entry, variant: str) -> str:
    """The entry's HTML as one variant (see selectors.entry_variant); identical for every viewer of it."""
    return render_to_string("campaigns/_feed_entry.html", {"entry": entry, "variant": variant})
