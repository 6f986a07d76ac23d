from django.contrib import messages
from django.contrib.auth.decorators import login_not_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from . import selectors, services
from .forms import CampaignForm
from .models import Campaign


@login_not_required
def landing(request):
    if request.user.is_authenticated:
        return redirect("dashboard")
    return render(request, "campaigns/landing.html")


def dashboard(request):
    return render(request, "campaigns/dashboard.html", selectors.dashboard_for(request.user))


def campaign_create(request):
    form = CampaignForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        campaign = services.campaign_create(gm=request.user, **form.cleaned_data)
        messages.success(request, f"{campaign.name} is ready. Send the invite link to your players.")
        return redirect(campaign)
    return render(request, "campaigns/campaign_form.html", {"form": form})


def campaign_detail(request, campaign_id: int):
    campaign = selectors.campaign_for_member(request.user, campaign_id)
    is_gm = campaign.is_gm(request.user)
    context = {
        "campaign": campaign,
        "is_gm": is_gm,
        "members": selectors.members_of(campaign),
        "invite_url": request.build_absolute_uri(reverse("campaign_join", args=[campaign.invite_token]))
        if is_gm
        else None,
    }
    return render(request, "campaigns/campaign_detail.html", context)


def _gm_only(request, campaign_id: int) -> Campaign:
    campaign = selectors.campaign_for_member(request.user, campaign_id)
    if not campaign.is_gm(request.user):
        raise PermissionDenied("Only the GM can do that.")
    return campaign


def campaign_edit(request, campaign_id: int):
    campaign = _gm_only(request, campaign_id)
    form = CampaignForm(request.POST or None, instance=Campaign.objects.get(pk=campaign.pk))
    if request.method == "POST" and form.is_valid():
        services.campaign_update(campaign=campaign, **form.cleaned_data)
        messages.success(request, "Campaign saved.")
        return redirect(campaign)
    return render(request, "campaigns/campaign_form.html", {"form": form, "campaign": campaign})


@require_POST
def invite_rotate(request, campaign_id: int):
    campaign = _gm_only(request, campaign_id)
    services.invite_rotate(campaign=campaign)
    messages.success(request, "New invite link made. The old one no longer works.")
    return redirect(campaign)


@require_POST
def member_remove(request, campaign_id: int, user_id: int):
    campaign = _gm_only(request, campaign_id)
    try:
        services.member_remove(campaign=campaign, user_id=user_id)
    except services.CampaignError as error:
        messages.error(request, str(error))
    else:
        messages.success(request, "Player removed from the table.")
    return redirect(campaign)


@require_POST
def campaign_leave(request, campaign_id: int):
    campaign = selectors.campaign_for_member(request.user, campaign_id)
    if campaign.is_gm(request.user):
        messages.error(request, "The GM cannot leave their own campaign.")
        return redirect(campaign)
    services.campaign_leave(campaign=campaign, user=request.user)
    messages.success(request, f"You left {campaign.name}.")
    return redirect("dashboard")


def campaign_join(request, token: str):
    campaign = Campaign.objects.filter(invite_token=token).select_related("gm").first()
    if request.method == "POST":
        try:
            campaign, joined = services.campaign_join(user=request.user, token=token)
        except (services.CampaignError, ValidationError) as error:
            messages.error(request, str(error.messages[0] if isinstance(error, ValidationError) else error))
            return redirect("dashboard")
        if joined:
            messages.success(request, f"Welcome to {campaign.name}!")
        return redirect(campaign)
    if campaign is None:
        return render(request, "campaigns/join_invalid.html", status=404)
    already = selectors.is_member(request.user, campaign)
    return render(request, "campaigns/join.html", {"campaign": campaign, "already": already})
