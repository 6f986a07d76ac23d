"""A sheet's recent rolls: the newest feed entries made as its character, as the viewer may see them.

Drawn on every sheet (a panel, campaigns/hooks.py) for whoever may see the sheet; a GM-only, blind or
"only me" entry is left out or shown as its notice by the feed's own rule (campaigns.selectors).
It refreshes live: a new entry made as the character sends each open sheet page whose viewer may
see it a bare "recent:<id>" refresh (campaigns.consumers), and the page fetches :func:`sheet_recent`,
this panel alone, through the same filter.
"""

from django.http import HttpResponse
from django.template.loader import render_to_string

from campaigns.selectors import feed_about_character

from .selectors import character_for_viewer

RECENT_ROLLS = 10


def recent_rolls(user, character) -> list:
    return feed_about_character(user, character.campaign, character_id=character.pk, limit=RECENT_ROLLS)


def recent_rolls_panel(request, *, campaign, character) -> str:
    context = {"character": character, "entries": recent_rolls(request.user, character)}
    return render_to_string("sheets/_recent_rolls.html", context, request=request)


def sheet_recent(request, character_id: int):
    """The recent rolls panel alone, as the live refresh fetches it (404 to whoever may not see the sheet)."""
    character = character_for_viewer(request.user, character_id)
    return HttpResponse(recent_rolls_panel(request, campaign=character.campaign, character=character))
