"""Read campaign state for a given user; everything here answers 404 to outsiders."""

from django.db.models import Q, QuerySet
from django.shortcuts import get_object_or_404

from .models import Campaign


def campaigns_visible_to(user) -> QuerySet[Campaign]:
    if not user.is_authenticated:
        return Campaign.objects.none()
    return Campaign.objects.filter(Q(gm=user) | Q(memberships__user=user)).distinct()


def campaign_for_member(user, campaign_id: int) -> Campaign:
    """The campaign if the user is its GM or a player; otherwise 404, so existence never leaks."""
    return get_object_or_404(campaigns_visible_to(user).select_related("gm"), pk=campaign_id)


def campaign_for_gm(user, campaign_id: int) -> Campaign:
    """The campaign if the user is its GM; 404 to outsiders, 403 is the caller's call for players."""
    return get_object_or_404(
        Campaign.objects.filter(gm=user) if user.is_authenticated else Campaign.objects.none(), pk=campaign_id
    )


def dashboard_for(user) -> dict[str, QuerySet[Campaign]]:
    return {
        "as_gm": Campaign.objects.filter(gm=user),
        "as_player": Campaign.objects.filter(memberships__user=user).select_related("gm"),
    }


def members_of(campaign: Campaign):
    return campaign.memberships.select_related("user")


def is_member(user, campaign: Campaign) -> bool:
    return campaign.is_gm(user) or campaign.memberships.filter(user=user).exists()
