"""Load a demo table: a GM, two players and one campaign per system (idempotent)."""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.db import transaction

from campaigns.models import Campaign, Membership, System

DEMO_PASSWORD = "roll-the-dice-42"  # noqa: S105 - printed on purpose: demo accounts only
DEMO_GM = "gm"
DEMO_PLAYERS = ("alice", "bob")
DEMO_CAMPAIGNS = {
    System.FIVE_BY_FIVE: ("The Salt Road", "A caravan crosses the salt flats. Five by Five demo table."),
    System.FREE_FALL: ("Neon Drop", "A heist in an arcology that never sleeps. FREE/FALL demo table."),
    System.TRIAD: ("Castle Dracula", "Hunters climb toward the count's tower. Triad demo table."),
    System.L5R: ("Winter Court", "Honour and steel at a frozen palace. L5R Roll & Keep demo table."),
}


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
        for system, (name, description) in DEMO_CAMPAIGNS.items():
            campaign, _ = Campaign.objects.get_or_create(
                gm=users[DEMO_GM], system=system, defaults={"name": name, "description": description}
            )
            for username in DEMO_PLAYERS:
                Membership.objects.get_or_create(campaign=campaign, user=users[username])
            self.load_characters(campaign, players=[users[u] for u in DEMO_PLAYERS])
        self.stdout.write(self.style.SUCCESS("Demo table ready at http://127.0.0.1:8000/"))
        self.stdout.write(f"  GM:      {DEMO_GM} / {DEMO_PASSWORD}")
        for username in DEMO_PLAYERS:
            self.stdout.write(f"  Player:  {username} / {DEMO_PASSWORD}")

    def load_characters(self, campaign, *, players) -> None:
        from sheets.demo import load_demo_characters

        load_demo_characters(campaign, players=players)
