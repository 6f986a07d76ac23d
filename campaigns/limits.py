"""The one rate limiter: every path that rolls, works out odds, imports or writes is counted here, per user.

Each request is counted once, against one action's budget, in Django's cache (shared by every worker
when the cache is shared). ``campaigns.middleware.RateLimitMiddleware`` counts every request by
:func:`action_for` before its view runs; the dice box, the chat box and saved rolls count in their
services instead (None in :data:`VIEW_ACTIONS`), because a retry of a roll already saved must be
answered with that roll, not refused, and only the service knows it is a retry.
"""

import math
import time

from django.conf import settings
from django.core.cache import cache

# (requests allowed, per seconds) for each user and action; settings.TABLE_RATE_LIMITS overrides any.
# Generous for play: a player clicks a few times a second at most, and never for long.
DEFAULT_RATE_LIMITS = {
    "roll": (10, 10),  # a dice-box line, a saved roll, each [[roll]] in a chat line
    "chat": (10, 10),
    "roll_button": (30, 30),  # a sheet's roll, a request's answer, L5R's keep and again, a turn's action
    # A GET that works out chances: the dice box's picture, the sheet's buttons, ... Also every live
    # refresh of an open sheet, so a GM with several sheets open at a busy fight stays well inside it.
    "odds": (120, 30),
    "import": (10, 60),
    "write": (60, 60),  # every other POST: an edit, an undo, XP, kit and rest, the GM's encounter controls
}

NOUNS = {"roll": "rolls", "chat": "messages", "roll_button": "rolls", "import": "imports", "odds": "requests"}

# The URL names whose views count against another budget than "write" (on every method), or, as None,
# not here: in their service, or (logging out) never. Every other POST counts as "write"; every other
# GET only reads, and is not counted. tests/campaigns/test_limits.py checks every URL is in its place.
VIEW_ACTIONS = {
    "logout": None,
    "table_roll": None,
    "table_chat": None,
    "table_saved_roll": None,
    "sheet_saved_roll": None,
    "sheet_roll": "roll_button",
    "sheet_request_roll": "roll_button",
    "l5r_after_roll": "roll_button",
    "turn_act": "roll_button",
    "turn_defend": "roll_button",
    "table_odds": "odds",
    "sheet": "odds",
    "sheet_buttons": "odds",
    "encounter_odds": "odds",
    "defence_odds": "odds",
    "l5r_builder_preview": "odds",
    "l5r_rekeep_choice": "odds",
    "character_import": "import",
}
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "TRACE"})


class RateLimited(Exception):
    """Too many requests of one kind in a short time; the message says how long to wait.

    ``retry_after`` is the same wait in whole seconds, for a ``Retry-After`` header.
    """

    def __init__(self, message: str, *, retry_after: int):
        super().__init__(message)
        self.retry_after = retry_after


def action_for(url_name: str | None, method: str) -> str | None:
    """The budget a request to this view counts against, or None when it is not counted here."""
    if url_name in VIEW_ACTIONS:
        return VIEW_ACTIONS[url_name]
    return None if method in SAFE_METHODS else "write"


def rate_limit_check(*, user, action: str) -> None:
    """Count one action for the user, or raise RateLimited if they are over their allowance.

    The window opens at the user's first action and lasts ``seconds``. A window anchored on the clock's
    multiples would let a burst straddle two windows (twice the allowance) and would reset in the middle
    of a short run of actions. Good enough to stop a stuck key or a script from flooding a table.
    """
    allowed, seconds = getattr(settings, "TABLE_RATE_LIMITS", {}).get(action, DEFAULT_RATE_LIMITS[action])
    key = f"table-rate:{action}:{user.pk}"
    opened_key = f"{key}:opened"
    now = time.time()
    if cache.add(key, 0, timeout=seconds):
        cache.set(opened_key, now, timeout=seconds)
    try:
        count = cache.incr(key)
    except ValueError:  # expired between add and incr: a new window opens now
        cache.set(key, 1, timeout=seconds)
        cache.set(opened_key, now, timeout=seconds)
        count = 1
    if count > allowed:
        opened = cache.get(opened_key, now)
        wait = max(1, math.ceil(opened + seconds - now))
        noun = NOUNS.get(action, "changes")
        raise RateLimited(
            f"Slow down: at most {allowed} {noun} every {seconds} seconds. Try again in {wait} s.",
            retry_after=wait,
        )
