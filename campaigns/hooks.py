"""What the layers above plug into this one: panels on pages (and what the players and the GM see of
one), who a dice-box roll is made as, and the portrait a feed entry shows.

A panel is HTML one layer renders for a page that another owns: the GM's party panel (sheets), the
encounter and the roll requests (play) on the table page; the roll prompts (play) on a sheet. The owner
registers a render function when Django loads it (its ``AppConfig.ready``); the page renders every
panel of its place with itself, so nothing is fetched empty on load. A later change is announced with
``realtime.panel_changed`` and each open page fetches the panel again from the owner's own view, where
the owner's permission checks apply.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django.db.models import Value
from django.utils.safestring import SafeString, mark_safe

TABLE = "table"
SHEET = "sheet"


@dataclass(frozen=True)
class Panel:
    place: str  # TABLE or SHEET
    name: str
    order: int
    # (request, **page context) -> the panel's HTML for this viewer; "" when they get no panel.
    render: Callable[..., str]


_panels: dict[tuple[str, str], Panel] = {}


def register_panel(*, place: str, name: str, render: Callable[..., str], order: int = 0) -> None:
    _panels[(place, name)] = Panel(place=place, name=name, order=order, render=render)


# Per live panel name, what the players and what the GM see of it at a campaign's table: campaign id
# (and, as keywords, what the change held already: realtime.panel_changed's ``held``) -> (the players'
# HTML, the same for each player; the GM's), drawn together from one reading. Their digests travel with
# the panel's refresh frame (realtime.panel_changed), each to its own seats, so a page that already
# shows its view fetches nothing.
_seat_views: dict[str, Callable[..., tuple[str, str]]] = {}


def register_seat_views(*, panel: str, render: Callable[..., tuple[str, str]]) -> None:
    _seat_views[panel] = render


def seat_views(panel: str) -> Callable[..., tuple[str, str]] | None:
    return _seat_views.get(panel)


def render_panels(place: str, request, **context) -> SafeString:
    """Every panel of a page, in order, as one piece of HTML (each piece escaped by its template)."""
    panels = sorted((p for p in _panels.values() if p.place == place), key=lambda p: (p.order, p.name))
    return mark_safe("".join(str(panel.render(request, **context)) for panel in panels))  # noqa: S308


@dataclass(frozen=True)
class RollSubject:
    """Someone a dice-box roll can be made as (a character at the table), by id and name, with the
    portrait its feed entries show (``table_portrait``: see :func:`register_feed_portrait`)."""

    pk: int
    name: str
    table_portrait: str = ""


_roll_subjects: Callable[..., list[RollSubject]] = lambda user, campaign: []  # noqa: E731


def register_roll_subjects(provider: Callable[..., list[RollSubject]]) -> None:
    """``provider(user, campaign)`` lists who the user may roll as in the dice box."""
    global _roll_subjects
    _roll_subjects = provider


def roll_subjects(user, campaign) -> list[RollSubject]:
    return _roll_subjects(user, campaign)


_table_characters: Callable[..., list[tuple[str, int]]] = lambda campaign: []  # noqa: E731


def register_table_characters(provider: Callable[..., list[tuple[str, int]]]) -> None:
    """``provider(campaign)`` lists the players' characters at the table as (name, owner id): a whisper
    may name a player by their character (campaigns/commands.py)."""
    global _table_characters
    _table_characters = provider


def table_characters(campaign) -> list[tuple[str, int]]:
    return _table_characters(campaign)


_feed_portrait: Callable[[], object] = lambda: Value("")  # noqa: E731


def register_feed_portrait(expression: Callable[[], object]) -> None:
    """``expression()`` is a query expression over a feed entry's ``character_id``: the stored name of the
    portrait of its character that every seat at the table may see, else blank. The feed's query
    annotates each entry with it as ``character_portrait`` (selectors), and a new entry takes it from the
    character it is made as (``table_portrait`` of a sheets Character or a RollSubject), so the entry's
    template asks for an image only where there is one, without a query per entry."""
    global _feed_portrait
    _feed_portrait = expression


def feed_portrait():
    return _feed_portrait()
