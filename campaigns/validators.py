"""Checks for the JSON a model stores, run when it is written (model clean / field validators).

JSON columns are filled by server code (an engine's result, a system's combat numbers), so a bad value
is a bug in that code: these checks make it fail loudly at the write instead of landing in a row the
feed or the encounter panel later trips over.
"""

from __future__ import annotations

import json
import math
from typing import Any

from django.core.exceptions import ValidationError

from rules.dice import Outcome

MAX_DEPTH = 12
# A 1,000-die roll (the engine's cap) stores each die as a small object: well under this.
MAX_RESULT_CHARS = 200_000
MAX_OUTCOME_LABEL = 80
MAX_CHANGE_CHARS = 300
OUTCOME_VALUES = frozenset(outcome.value for outcome in Outcome)


def _walk(value: Any, *, what: str, depth: int) -> None:
    if depth > MAX_DEPTH:
        raise ValidationError(f"{what} is nested more than {MAX_DEPTH} levels deep.")
    if value is None or isinstance(value, (bool, int, str)):
        return
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValidationError(f"{what} holds {value!r}; only finite numbers can be stored.")
        return
    if isinstance(value, (list, tuple)):
        for item in value:
            _walk(item, what=what, depth=depth + 1)
        return
    if isinstance(value, dict):
        for key, item in value.items():
            # json.dumps would turn 1 into "1" silently, so the stored row would differ from the value.
            if not isinstance(key, str):
                raise ValidationError(f"{what} has the key {key!r}; keys must be text.")
            _walk(item, what=what, depth=depth + 1)
        return
    raise ValidationError(f"{what} holds a {type(value).__name__}, which JSON cannot store.")


def check_json_object(value: Any, *, what: str, max_chars: int) -> None:
    """A dict of plain JSON (text keys, finite numbers) no longer than ``max_chars`` once written."""
    if not isinstance(value, dict):
        raise ValidationError(f"{what} must be a JSON object, not {type(value).__name__}.")
    _walk(value, what=what, depth=0)
    size = len(json.dumps(value, allow_nan=False))
    if size > max_chars:
        raise ValidationError(f"{what} is {size} characters long; at most {max_chars} can be stored.")


def validate_feed_result(value: Any) -> None:
    """A feed entry's result: empty (a chat line) or a roll in one of the shapes rendering.py draws."""
    check_json_object(value, what="The roll's result", max_chars=MAX_RESULT_CHARS)
    if not value:
        return
    if not isinstance(value.get("terms"), list) and not isinstance(value.get("dice"), list):
        raise ValidationError(
            "The roll's result must list its dice (as 'dice' or as the dice box's 'terms')."
        )
    outcome = value.get("outcome")
    if not isinstance(outcome, str) or outcome not in OUTCOME_VALUES:
        raise ValidationError(f"The roll's outcome {outcome!r} is not one of: {', '.join(Outcome)}.")
    total = value.get("total")
    if total is not None and (isinstance(total, bool) or not isinstance(total, int)):
        raise ValidationError(f"The roll's total must be a whole number or empty, not {total!r}.")
    label = value.get("outcome_label", "")
    if not isinstance(label, str) or len(label) > MAX_OUTCOME_LABEL:
        raise ValidationError(
            f"The roll's outcome wording must be text of at most {MAX_OUTCOME_LABEL} characters."
        )
    changes = value.get("changes", [])
    if not isinstance(changes, list) or not all(
        isinstance(change, str) and len(change) <= MAX_CHANGE_CHARS for change in changes
    ):
        raise ValidationError(
            f"The roll's changes must be lines of text of at most {MAX_CHANGE_CHARS} characters."
        )
    if "pending" in value:
        _check_pending(value["pending"])


def _check_pending(pending: Any) -> None:
    """A hidden roll's sheet changes, kept for applying later (the shape in rendering.py, PENDING)."""
    if (
        not isinstance(pending, dict)
        or set(pending) != {"before", "after", "lines"}
        or not isinstance(pending["before"], dict)
        or not pending["before"]
        or not isinstance(pending["after"], dict)
        or set(pending["after"]) != set(pending["before"])
    ):
        raise ValidationError(
            "The roll's pending changes must give the same values before and after, and nothing else."
        )
    lines = pending["lines"]
    if not isinstance(lines, list) or not all(
        isinstance(line, str) and len(line) <= MAX_CHANGE_CHARS for line in lines
    ):
        raise ValidationError(
            f"The roll's pending changes must be lines of text of at most {MAX_CHANGE_CHARS} characters."
        )
