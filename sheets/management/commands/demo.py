"""Load a demo table: a GM, two players and one campaign per system (idempotent)."""

import os

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.db import transaction
from django.urls import reverse

from campaigns.lan import WILDCARDS, is_usable, serving_urls
from campaigns.models import Campaign, Membership
from sheets.demo import load_demo_characters
from sheets.registry import game_systems

DEMO_PASSWORD = "roll-the-dice-42"  # noqa: S105 - printed on purpose: demo accounts only
DEMO_GM = "gm"
DEMO_PLAYERS = ("alice", "bob")


class Command(BaseCommand):
    help = "Create demo users (gm, alice, bob) and one campaign per system. Safe to run again."

    @transaction.atomic
    def handle(self, *args, **options):
        User = get_user_model()
        users = {}
        for username in (DEMO_GM, *DEMO_PLAYERS):
            user, created = User.objects.get_or_create(username=username)
            if created:
                user.set_password(DEMO_PASSWORD)
                user.save()
            users[username] = user
        for config in game_systems():
            name, description = config.sheet.demo_campaign
            campaign, _ = Campaign.objects.get_or_create(
                gm=users[DEMO_GM],
                system=config.label,
                defaults={"name": name, "description": description, "options": config.sheet.demo_options},
            )
            for username in DEMO_PLAYERS:
                Membership.objects.get_or_create(campaign=campaign, user=users[username])
            load_demo_characters(campaign, players=[users[u] for u in DEMO_PLAYERS])
        # make run passes the address and port it serves on; the defaults are uvicorn's own.
        host, port = os.environ.get("HOST", "127.0.0.1"), os.environ.get("PORT", "8000")
        urls = serving_urls(host, port)
        self.stdout.write(self.style.SUCCESS(f"Demo table ready at {urls[0]}/"))
        for url in urls[1:]:
            self.stdout.write(f"  also at {url}/")
        if host not in WILDCARDS and not is_usable(host):
            self.stdout.write("  (this address is for this machine only: HOST=0.0.0.0 lets the room join)")
        self.stdout.write(f"  GM:      {DEMO_GM} / {DEMO_PASSWORD}")
        for username in DEMO_PLAYERS:
            self.stdout.write(f"  Player:  {username} / {DEMO_PASSWORD}")
        self.stdout.write("  Invite links (a player opens one, signs up or logs in, and is seated):")
        for campaign in Campaign.objects.filter(gm=users[DEMO_GM]).order_by("pk"):
            join = reverse("campaign_join", args=[campaign.invite_token])
            self.stdout.write(f"    {campaign.name}: {urls[0]}{join}")
