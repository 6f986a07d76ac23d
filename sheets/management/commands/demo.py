"""Load a demo table: a GM, two players and one campaign per system (idempotent)."""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.db import transaction

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
                gm=users[DEMO_GM], system=config.label, defaults={"name": name, "description": description}
            )
            for username in DEMO_PLAYERS:
                Membership.objects.get_or_create(campaign=campaign, user=users[username])
            load_demo_characters(campaign, players=[users[u] for u in DEMO_PLAYERS])
        self.stdout.write(self.style.SUCCESS("Demo table ready at http://127.0.0.1:8000/"))
        self.stdout.write(f"  GM:      {DEMO_GM} / {DEMO_PASSWORD}")
        for username in DEMO_PLAYERS:
            self.stdout.write(f"  Player:  {username} / {DEMO_PASSWORD}")
