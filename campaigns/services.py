"""Everything that changes campaign state: greppable verbs with keyword-only arguments."""

from django.db import transaction

from .models import Campaign, Membership, new_invite_token


class CampaignError(Exception):
    """A refused campaign action; the message is shown to the user."""


def campaign_create(*, gm, name: str, system: str, description: str = "") -> Campaign:
    campaign = Campaign(gm=gm, name=name, system=system, description=description)
    campaign.full_clean()
    campaign.save()
    return campaign


def campaign_update(*, campaign: Campaign, name: str, description: str) -> Campaign:
    campaign.name = name
    campaign.description = description
    campaign.full_clean()
    campaign.save(update_fields=["name", "description"])
    return campaign


def campaign_join(*, user, token: str) -> tuple[Campaign, bool]:
    """Seat the user at the campaign the token opens; returns (campaign, newly_joined)."""
    campaign = Campaign.objects.filter(invite_token=token).first()
    if campaign is None:
        raise CampaignError("This invite link is not valid any more. Ask your GM for a new one.")
    if campaign.is_gm(user):
        return campaign, False
    _, created = Membership.objects.get_or_create(campaign=campaign, user=user)
    return campaign, created


def invite_rotate(*, campaign: Campaign) -> str:
    """Give the campaign a fresh invite token; links carrying the old one stop working."""
    campaign.invite_token = new_invite_token()
    campaign.save(update_fields=["invite_token"])
    return campaign.invite_token


@transaction.atomic
def member_remove(*, campaign: Campaign, user_id: int) -> None:
    deleted, _ = Membership.objects.filter(campaign=campaign, user_id=user_id).delete()
    if not deleted:
        raise CampaignError("That player is not at this table.")
    from . import realtime

    realtime.member_removed(campaign_id=campaign.pk, user_id=user_id)


def campaign_leave(*, campaign: Campaign, user) -> None:
    member_remove(campaign=campaign, user_id=user.pk)
