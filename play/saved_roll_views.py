"""Saved rolls on the table page and on a sheet: show, add, roll with one click, delete.

Each action is a plain form POST that redirects with a message, and answers htmx with the panel (on a
sheet, a roll answers with the sheet's roll result and the panels out of band). A saved roll is looked
up by its owner, so another user's is a 404: nobody learns that it exists.
"""

from __future__ import annotations

import uuid

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.shortcuts import redirect
from django.template.loader import render_to_string
from django.template.response import TemplateResponse
from django.views.decorators.http import require_POST
from django_htmx.http import reswap

from campaigns import hooks, systems
from campaigns.limits import RateLimited
from campaigns.rendering import drawn_digest, format_percent
from campaigns.selectors import campaign_for_member, entry_variant_for
from campaigns.services import CampaignError, notation_chance
from rules import notation
from rules.dice import Roller, RulesError, system_random
from rules.notation import NotationError
from sheets.recent import recent_rolls
from sheets.selectors import character_for_editor

from . import saved_rolls
from .forms import IdempotencyForm, SavedRollForm, caret_under

PANEL = "play/_saved_rolls.html"
PREFIX = "saved"


def _context(request, *, campaign, character=None, form=None, notice="", error="", caret=None) -> dict:
    """The panel: the table's (the user's rolls for themselves and each character) or one sheet's.

    ``caret``: the line refused when saved, with a caret under the character at fault (a line that
    reads but whose chance is out of reach); otherwise the form finds its own.
    """
    if character is None:
        rolls = saved_rolls.saved_rolls_for_table(request.user, campaign)
        subjects = hooks.roll_subjects(request.user, campaign)
    else:
        rolls = saved_rolls.saved_rolls_for_sheet(request.user, character)
        subjects = None
    form = form or SavedRollForm(prefix=PREFIX, subjects=subjects)
    return {
        "campaign": campaign,
        "character": character,
        "groups": _groups(rolls, on_sheet=character is not None, campaign=campaign),
        "form": form,
        "caret": caret or form.notation_caret(),
        "notice": notice,
        "error": error,
        "drawn": _drawn_from(rolls, subjects, campaign) if character is None else "",
    }


def _drawn_from(rolls, subjects, campaign) -> str:
    """A digest of what the table's panel shows besides its keys and its message: each saved roll as
    its button and heading draw it, the characters the add form offers, the table's options (a
    button's chance). A roll sends it back, so the answer can tell whether the page's panel is still
    what a fresh one would be (table_saved_roll)."""
    shown = [
        [[r.pk, r.name, r.line, r.visibility, r.character.name if r.character else None] for r in rolls],
        [[subject.pk, subject.name] for subject in subjects],
        campaign.options,
    ]
    return drawn_digest(shown)


def _groups(rolls, *, on_sheet: bool, campaign) -> list[dict]:
    """The buttons under a heading each: on the table page, "For myself" and then each character.

    Each button has a one-time key of its own: a double click rolls once, two buttons never share one,
    and the chance of its line as the dice box prices it (blank for a line with no target).
    """
    dice_options = systems.get(campaign.system).dice_box_options(campaign.options)

    def percent(line: str) -> str:
        try:
            return format_percent(notation_chance(notation.parse(line), line, **dice_options))
        except NotationError:  # saved before a table option changed what the box can price
            return ""

    groups: list[dict] = []
    for roll in rolls:
        label = "" if on_sheet else (roll.character.name if roll.character else "For myself")
        if not groups or groups[-1]["label"] != label or groups[-1]["character_id"] != roll.character_id:
            groups.append({"label": label, "character_id": roll.character_id, "buttons": []})
        groups[-1]["buttons"].append({"roll": roll, "key": uuid.uuid4().hex, "percent": percent(roll.line)})
    return groups


def _panel(request, status=200, **context) -> TemplateResponse:
    if request.htmx:
        return TemplateResponse(request, PANEL, _context(request, **context), status=status)
    # Without JavaScript: the panel on a page of its own, what was typed kept beside its messages.
    return TemplateResponse(request, "play/saved_rolls.html", _context(request, **context), status=status)


def _back(request, *, campaign, character, message: str, level=messages.SUCCESS):
    messages.add_message(request, level, message)
    return redirect(character) if character is not None else redirect("table", campaign.pk)


# The panels every page draws with itself (campaigns/hooks.py).


def table_panel(request, *, campaign) -> str:
    return render_to_string(PANEL, _context(request, campaign=campaign), request=request)


def sheet_panel(request, *, campaign, character) -> str:
    """The viewer's own saved rolls for this character: its player's, or the GM's; nobody else gets one."""
    if not character.can_edit(request.user):
        return ""
    return render_to_string(PANEL, _context(request, campaign=campaign, character=character), request=request)


# The routes.


def table_saved_rolls(request, campaign_id: int):
    campaign = campaign_for_member(request.user, campaign_id)
    return _show_or_add(request, campaign=campaign, character=None)


def sheet_saved_rolls(request, character_id: int):
    character = character_for_editor(request.user, character_id)
    return _show_or_add(request, campaign=character.campaign, character=character)


def _show_or_add(request, *, campaign, character):
    if request.method != "POST":
        return _panel(request, campaign=campaign, character=character)
    subjects = hooks.roll_subjects(request.user, campaign) if character is None else None
    form = SavedRollForm(request.POST, prefix=PREFIX, subjects=subjects)
    caret = None
    if form.is_valid():
        data = form.cleaned_data
        # On the table page the form offers only the user's roll subjects; the model checks it again.
        chosen = character
        if chosen is None and data["character"] is not None:
            chosen = character_for_editor(request.user, data["character"])
        try:
            saved = saved_rolls.saved_roll_create(
                campaign=campaign, owner=request.user, character=chosen,
                name=data["name"], line=data["line"], visibility=data["visibility"],
            )
        except ValidationError as refused:
            form.add_error(None, refused)
            if isinstance(refused.__cause__, NotationError):
                caret = caret_under(refused.__cause__)
        else:
            notice = f"Saved “{saved.name}”."
            if not request.htmx:
                return _back(request, campaign=campaign, character=character, message=notice)
            return _panel(request, campaign=campaign, character=character, notice=notice)
    status = 422 if request.htmx else 400
    return _panel(request, status=status, campaign=campaign, character=character, form=form, caret=caret)


def _table_saved(request, campaign_id: int, saved_id: int):
    campaign = campaign_for_member(request.user, campaign_id)
    return campaign, saved_rolls.saved_roll_at_table(request.user, campaign, saved_id)


def _sheet_saved(request, character_id: int, saved_id: int):
    character = character_for_editor(request.user, character_id)
    return character, saved_rolls.saved_roll_of_sheet(request.user, character, saved_id)


def _roll(request, saved):
    """Roll it: (entry or None, error message, status, seconds to wait when rate limited)."""
    key = IdempotencyForm(request.POST)
    if not key.is_valid():
        return None, "This button is out of date; reload the page and click it again.", 422, None
    try:
        entry, _ = saved_rolls.roll_saved(
            saved_roll=saved, user=request.user,
            idempotency_key=key.cleaned_data["idempotency_key"], roller=Roller(system_random()),
        )
    except RateLimited as error:
        return None, str(error), 429, error.retry_after
    except (saved_rolls.SavedRollError, CampaignError, RulesError) as error:
        return None, f"{saved.name}: {error}", 422, None
    return entry, "", 200, None


def _with_retry_after(response, retry_after):
    if retry_after is not None:
        response["Retry-After"] = str(retry_after)
    return response


@require_POST
def table_saved_roll(request, campaign_id: int, saved_id: int):
    campaign, saved = _table_saved(request, campaign_id, saved_id)
    entry, error, status, retry_after = _roll(request, saved)
    if not request.htmx:
        if error:
            return _back(request, campaign=campaign, character=None, message=error, level=messages.ERROR)
        return _back(request, campaign=campaign, character=None, message=f"Rolled “{saved.name}”.")
    # The entry itself reaches the feed by the table's socket, like any dice-box roll.
    notice = "" if error else f"Rolled “{saved.name}”."
    if not error:
        rolls = saved_rolls.saved_rolls_for_table(request.user, campaign)
        drawn = _drawn_from(rolls, hooks.roll_subjects(request.user, campaign), campaign)
        if request.POST.get("panel_drawn") == drawn:
            # The page's panel offers what a fresh one would: only the button's key (used now) and the
            # message change, each in place; the rest of the panel stays as the player left it.
            context = {"saved": saved, "key": uuid.uuid4().hex, "notice": notice, "rolled": True}
            return reswap(TemplateResponse(request, f"{PANEL}#rolled", context), "none")
    response = _panel(request, status=status, campaign=campaign, notice=notice, error=error)
    return _with_retry_after(response, retry_after)


@require_POST
def sheet_saved_roll(request, character_id: int, saved_id: int):
    character, saved = _sheet_saved(request, character_id, saved_id)
    entry, error, status, retry_after = _roll(request, saved)
    campaign = character.campaign
    if not request.htmx:
        if error:
            return _back(request, campaign=campaign, character=character, message=error, level=messages.ERROR)
        return _back(request, campaign=campaign, character=character, message=f"Rolled “{saved.name}”.")
    # The sheet's result area shows it as a sheet roll does, in the variant the roller gets (a blind
    # roll: its notice); the panel (fresh keys) and the recent rolls come along out of band.
    context = _context(request, campaign=campaign, character=character)
    context.update(
        entry=entry,
        variant=entry_variant_for(request.user, entry, campaign) if entry is not None else None,
        error=error,
        recent_entries=recent_rolls(request.user, character),
    )
    response = TemplateResponse(request, "play/_saved_roll_result.html", context, status=status)
    return _with_retry_after(response, retry_after)


def _delete(request, *, campaign, character, saved):
    name = saved.name
    saved_rolls.saved_roll_delete(saved_roll=saved, user=request.user)
    notice = f"Deleted “{name}”."
    if not request.htmx:
        return _back(request, campaign=campaign, character=character, message=notice)
    return _panel(request, campaign=campaign, character=character, notice=notice)


@require_POST
def table_saved_roll_delete(request, campaign_id: int, saved_id: int):
    campaign, saved = _table_saved(request, campaign_id, saved_id)
    return _delete(request, campaign=campaign, character=None, saved=saved)


@require_POST
def sheet_saved_roll_delete(request, character_id: int, saved_id: int):
    character, saved = _sheet_saved(request, character_id, saved_id)
    return _delete(request, campaign=character.campaign, character=character, saved=saved)
