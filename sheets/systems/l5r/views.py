"""The L5R builder's live preview: rings and skill pools worked out on the server as the player types."""

from django.http import Http404
from django.template.response import TemplateResponse
from django.views.decorators.http import require_POST

from campaigns.selectors import campaign_for_member

from .sheet import system


@require_POST
def l5r_builder_preview(request, campaign_id: int):
    campaign = campaign_for_member(request.user, campaign_id)
    if campaign.system != system.key:
        raise Http404("This campaign does not play L5R.")
    # Nothing is validated or saved here: the pools follow whatever numbers are typed so far.
    form = system.builder_form(campaign=campaign, data=request.POST)
    return TemplateResponse(request, "l5r/builder.html#preview", {"form": form})
