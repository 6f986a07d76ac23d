"""Check the feed's hash chain (campaigns/chain.py) of one campaign or of all, and name the first break.

Exits with status 1 when a chain is broken, so a cron job or a monitoring check can alert on it.
"""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from campaigns import chain
from campaigns.models import Campaign


class Command(BaseCommand):
    help = "Verify each campaign's feed hash chain; report the first entry that breaks it."

    def add_arguments(self, parser):
        parser.add_argument(
            "campaign_ids", nargs="*", type=int, help="Campaign ids (default: every campaign)."
        )

    def handle(self, *args, campaign_ids, **options):
        campaigns = Campaign.objects.order_by("pk")
        if campaign_ids:
            campaigns = campaigns.filter(pk__in=campaign_ids)
            missing = set(campaign_ids) - set(campaigns.values_list("pk", flat=True))
            if missing:
                raise CommandError(f"No campaign with id {', '.join(map(str, sorted(missing)))}.")
        broken = 0
        for campaign in campaigns.iterator():
            found = chain.first_break(campaign)
            if found is None:
                self.stdout.write(f"campaign {campaign.pk} ({campaign.name}): chain intact")
            else:
                broken += 1
                self.stdout.write(self.style.ERROR(f"campaign {campaign.pk} ({campaign.name}): {found}"))
        if broken:
            raise CommandError(f"{broken} campaign feed(s) broken.", returncode=1)
