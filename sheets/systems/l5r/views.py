"""The L5R builder's live preview (rings and skill pools worked out on the server as the player types),
and what the sheet offers after a roll: keeping other dice (with what the dice picked would make, asked as
they are tapped), a second attempt."""

from django.http import Http404
from django.template.response import TemplateResponse
from django.views.decorators.http import require_GET, require_POST

from campaigns.forms import whole_number
from campaigns.selectors import campaign_for_member
from sheets import selectors
from sheets.views import sheet_roll

from . import after_roll
from .sheet import system


@require_POST
def l5r_builder_preview(request, campaign_id: int):
    campaign = campaign_for_member(request.user, campaign_id)
    if campaign.system != system.key:
        raise Http404("This campaign does not play L5R.")
    # Nothing is validated or saved here: the pools follow whatever numbers are typed so far.
    form = system.builder_form(campaign=campaign, data=request.POST)
    return TemplateResponse(request, "l5r/builder.html#preview", {"form": form})


def _own_roll(request, character, cursor: str):
    """The character's roll the cursor names, made by this user; 404 for anything else."""
    entry = after_roll.roll_entry_or_none(character, cursor)
    # The one who rolled chooses: so the answer, with the first roll's visibility, reaches nobody who
    # could not see the first (the GM never opens a player's "only me" roll this way).
    if entry is None or entry.author_id != request.user.pk:
        raise Http404("No roll of yours by that name on this sheet.")
    return entry


@require_GET
def l5r_rekeep_choice(request, character_id: int, cursor: str):
    """What the dice picked under a roll would make, before they are sent: how many of those allowed, and
    the new total and outcome read from the stored entry by the engine (after_roll.choice)."""
    character = selectors.character_for_editor(request.user, character_id, system=system.key)
    entry = _own_roll(request, character, cursor)
    offered = after_roll.offer(character, entry)
    if offered is None or offered.choice is None:
        raise Http404("The dice of that roll cannot be chosen.")
    picked = (whole_number(value, min_value=0) for value in request.GET.getlist("keep"))
    choice = after_roll.choice(entry, [position for position in picked if position is not None])
    context = {"character": character, "entry": entry, "choice": choice, "oob": True}  # oob: the submit too
    return TemplateResponse(request, "l5r/_after_roll.html#rekeep-status", context)


@require_POST
def l5r_after_roll(request, character_id: int, cursor: str):
    """Turn the form under a roll's result into the sheet roll it asks for, answered as any sheet roll.

    Only the choice travels from the page (which dice, whether the situation changed): the faces, the
    TN and the raises are read from the stored entry when the roll is made (after_roll.py). The answer
    is seen by those who saw the first roll.
    """
    character = selectors.character_for_editor(request.user, character_id, system=system.key)
    entry = _own_roll(request, character, cursor)
    do = request.POST.get("do")
    if do == after_roll.REKEEP:
        positions = (whole_number(value, min_value=0) for value in request.POST.getlist("keep"))
        keep = ".".join(str(position) for position in positions if position is not None)
        key = f"{after_roll.REKEEP}:{cursor}:{keep}"
    elif do == after_roll.RETRY:
        flag = after_roll.NEW_SITUATION if request.POST.get("new_situation") else ""
        key = f"{after_roll.RETRY}:{cursor}:{flag}"
    else:
        raise Http404("Nothing to do by that name.")
    post = request.POST.copy()
    post["visibility"] = entry.visibility
    request.POST = post
    with after_roll.vouched(key):
        return sheet_roll(request, character.pk, key)
