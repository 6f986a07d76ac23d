"""Everything that changes campaign state: greppable verbs with keyword-only arguments."""

from django.db import transaction
from django.db.models import F

from .models import Campaign, FeedEntry, Membership, Visibility, new_invite_token


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


def feed_entry_create(
    *,
    campaign: Campaign,
    author,
    label: str,
    kind: str = FeedEntry.Kind.ROLL,
    character=None,
    request: dict | None = None,
    result: dict | None = None,
    summary: str = "",
    chance=None,
    visibility: str = Visibility.PUBLIC,
    idempotency_key: str | None = None,
) -> tuple[FeedEntry, bool]:
    """Number and save one feed entry, broadcast it once committed; returns (entry, created).

    A repeated idempotency key from the same author returns the entry it made the first time, so a
    double-click or a retried request never rolls twice. Call inside the caller's transaction when the
    roll also changes a sheet, so both land or neither does.
    """
    if visibility not in Visibility.values:
        raise CampaignError("Choose who may see this roll.")
    with transaction.atomic():
        if idempotency_key:
            existing = FeedEntry.objects.filter(
                campaign=campaign, author=author, idempotency_key=idempotency_key
            ).first()
            if existing is not None:
                return existing, False
        Campaign.objects.filter(pk=campaign.pk).update(last_seq=F("last_seq") + 1)
        seq = Campaign.objects.values_list("last_seq", flat=True).get(pk=campaign.pk)
        entry = FeedEntry(
            campaign=campaign,
            seq=seq,
            kind=kind,
            author=author,
            character=character,
            label=label[:200],
            request=request or {},
            result=result or {},
            summary=summary[:300],
            chance="" if chance is None else str(chance),
            visibility=visibility,
            idempotency_key=idempotency_key or None,
        )
        entry.full_clean()
        entry.save()
        from . import realtime

        realtime.entry_created(entry)
    return entry, True
