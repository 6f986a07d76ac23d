"""Read characters for a user: members of the campaign see, the owner and the GM edit."""

from django.core.exceptions import PermissionDenied
from django.http import Http404

from campaigns.hooks import RollSubject
from campaigns.prepared import PreparedQuery
from campaigns.selectors import campaigns_seating

from .models import Character


@PreparedQuery
def _character_seating(user_id: int, character_id: int):
    return Character.objects.select_related("campaign", "campaign__gm", "owner").filter(
        campaign__in=campaigns_seating(user_id), pk=character_id
    )


def sheet_shown(character: Character, *, is_gm: bool) -> bool:
    """Whether someone seated at the character's table sees its sheet (and so its portrait): an NPC's
    is the GM's secret."""
    return is_gm or not character.is_npc


def character_for_viewer(user, character_id: int) -> Character:
    """The character if the user sits at its campaign's table; 404 otherwise, so nothing leaks.

    NPCs are the GM's secret: players get 404 for them too (:func:`sheet_shown`).
    """
    found = _character_seating(user.pk, character_id) if user.is_authenticated else []
    if not found or not sheet_shown(found[0], is_gm=found[0].campaign.is_gm(user)):
        raise Http404("No such character.")
    return found[0]


def character_for_editor(user, character_id: int, *, system: str | None = None) -> Character:
    """The character if the user owns it or runs its campaign; 404 to outsiders, 403 to other players.
    With ``system`` (a system package's own actions), 404 too for a sheet of another game system."""
    character = character_for_viewer(user, character_id)
    if not character.can_edit(user):
        raise PermissionDenied("Only the character's player and the GM can change this sheet.")
    if system is not None and character.campaign.system != system:
        raise Http404("This sheet belongs to another game system.")
    return character


def characters_of(campaign, user):
    """A campaign's characters for its page: PCs first, NPCs only for the GM."""
    characters = campaign.characters.select_related("owner")
    if not campaign.is_gm(user):
        characters = characters.filter(is_npc=False)
    return characters


def characters_for_table(campaign):
    return campaign.characters.select_related("owner").order_by("is_npc", "name", "pk")


def player_characters(campaign) -> list[tuple[str, int]]:
    """The players' characters at a table as (name, owner id), NPCs left out: whom a whisper may name."""
    return list(campaign.characters.filter(is_npc=False).values_list("name", "owner_id"))


def _subjects(campaign_id: int):
    characters = Character.objects.filter(campaign_id=campaign_id).order_by("is_npc", "name", "pk")
    return characters.only("pk", "name", "is_npc", "portrait")


_every_subject = PreparedQuery(_subjects)  # the GM's: any character at the table
_own_subjects = PreparedQuery(lambda campaign_id, user_id: _subjects(campaign_id).filter(owner_id=user_id))


def roll_subjects(user, campaign) -> list[RollSubject]:
    """Characters a user may roll as in the dice box: their own; the GM may use any at the table."""
    if campaign.is_gm(user):
        characters = _every_subject(campaign.pk)
    else:
        characters = _own_subjects(campaign.pk, user.pk)
    return [RollSubject(pk=c.pk, name=c.name, table_portrait=c.table_portrait) for c in characters]
