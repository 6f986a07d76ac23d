import secrets

from django.conf import settings
from django.db import models
from django.urls import reverse
from django.utils.functional import cached_property


def new_invite_token() -> str:
    return secrets.token_urlsafe(24)


class System(models.TextChoices):
    FIVE_BY_FIVE = "fivebyfive", "Five by Five 2.5"
    FREE_FALL = "freefall", "FREE/FALL A5"
    TRIAD = "triad", "Triad"
    L5R = "l5r", "L5R Roll & Keep"


class Campaign(models.Model):
    name = models.CharField(max_length=80)
    description = models.TextField(max_length=2000, blank=True)
    system = models.CharField(max_length=16, choices=System.choices)
    gm = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="campaigns_run")
    invite_token = models.CharField(max_length=64, unique=True, default=new_invite_token)
    # Optional rules a GM turns on per table (Five by Five aspects, L5R odd-die house rule, ...).
    options = models.JSONField(default=dict, blank=True)
    # The last feed sequence number handed out; bumped in the same transaction as the entry.
    last_seq = models.PositiveIntegerField(default=0, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name", "pk"]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("campaign_detail", args=[self.pk])

    def is_gm(self, user) -> bool:
        return user.is_authenticated and user.pk == self.gm_id


class Membership(models.Model):
    """A player seat at a campaign's table; the GM holds no membership row."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships")
    joined_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["joined_at", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "user"], name="one_membership_per_player"),
        ]

    def __str__(self) -> str:
        return f"{self.user} in {self.campaign}"


class Visibility(models.TextChoices):
    PUBLIC = "public", "Everyone"
    GM = "gm", "GM only"
    BLIND = "blind", "Blind (GM sees, I don't)"
    SELF = "self", "Only me"


class FeedEntry(models.Model):
    """One immutable line of a table's feed: a roll or a chat line, numbered per campaign.

    Results are made on the server and stored whole (every die face), so the feed, the history page
    and the catch-up after a reconnect all render from this row and never from client data.
    """

    class Kind(models.TextChoices):
        ROLL = "roll", "Roll"
        CHAT = "chat", "Chat"

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="feed")
    seq = models.PositiveIntegerField()
    kind = models.CharField(max_length=8, choices=Kind.choices, default=Kind.ROLL)
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="feed_entries"
    )
    character = models.ForeignKey(
        "sheets.Character", on_delete=models.SET_NULL, null=True, blank=True, related_name="rolls"
    )
    # What was asked, in words ("Amateur Chef 4", "3d6+2") and as data (the options, the notation).
    label = models.CharField(max_length=200)
    request = models.JSONField(default=dict)
    # Every die face, the outcome and what changed on the sheet, as the engine reported it.
    result = models.JSONField(default=dict)
    summary = models.CharField(max_length=300, blank=True)
    # The exact chance the roll had before it was made, as "numerator/denominator"; blank if none.
    chance = models.CharField(max_length=80, blank=True)
    visibility = models.CharField(max_length=8, choices=Visibility.choices, default=Visibility.PUBLIC)
    # NULL, not "", so entries without a key never collide in the unique constraint.
    idempotency_key = models.CharField(max_length=64, null=True, blank=True)  # noqa: DJ001
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["campaign", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "seq"], name="one_seq_per_campaign_entry"),
            models.UniqueConstraint(
                fields=["campaign", "author", "idempotency_key"], name="one_entry_per_idempotency_key"
            ),
        ]
        indexes = [models.Index(fields=["campaign", "-seq"], name="feed_newest_first")]

    def __str__(self) -> str:
        return f"#{self.seq} {self.label}"

    @cached_property
    def display(self) -> dict | None:
        """The result as groups of dice for the feed template (shapes in campaigns/rendering.py)."""
        from .rendering import entry_display

        return entry_display(self.result)

    @property
    def chance_percent(self) -> str:
        from .rendering import chance_percent

        return chance_percent(self.chance)


class Encounter(models.Model):
    """A fight (or any scene in turns) the GM runs at a campaign's table."""

    class Status(models.TextChoices):
        SETUP = "setup", "Setting up"
        RUNNING = "running", "Running"
        ENDED = "ended", "Ended"

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="encounters")
    name = models.CharField(max_length=80)
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.SETUP)
    round = models.PositiveIntegerField(default=0)
    # Index into the turn order of whoever acts now.
    turn = models.PositiveIntegerField(default=0)
    # What the system tracks across turns (FREE/FALL declarations, who stole initiative, ...).
    state = models.JSONField(default=dict, blank=True)
    # Moved on by every GM action, so a double click or a second GM tab cannot act twice.
    version = models.PositiveIntegerField(default=1)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("encounter", args=[self.campaign_id, self.pk])


class Combatant(models.Model):
    """Someone in an encounter: a character with a sheet, or a quick NPC with a few numbers."""

    class Side(models.TextChoices):
        PLAYERS = "players", "Players"
        GM = "gm", "GM"

    encounter = models.ForeignKey(Encounter, on_delete=models.CASCADE, related_name="combatants")
    character = models.ForeignKey(
        "sheets.Character", on_delete=models.CASCADE, null=True, blank=True, related_name="combatants"
    )
    name = models.CharField(max_length=80)
    side = models.CharField(max_length=8, choices=Side.choices)
    initiative = models.IntegerField(null=True, blank=True)
    position = models.PositiveIntegerField(default=0)
    # A quick NPC's numbers (Triad Difficulty, a few descriptors or traits, attributes, its damage).
    stats = models.JSONField(default=dict, blank=True)
    # Per-round bits the rules track: dodges used, actions taken, stunned, dice declared.
    state = models.JSONField(default=dict, blank=True)
    out = models.BooleanField(default=False)

    class Meta:
        ordering = ["position", "pk"]

    def __str__(self) -> str:
        return self.name


class RollRequest(models.Model):
    """The GM asks one or several characters for a roll; each answer is a feed entry."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="roll_requests")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    label = models.CharField(max_length=120)
    # The sheet's roll key ("ability:body", "descriptor:12", "skill:Kenjutsu") and its options (TN...).
    roll_key = models.CharField(max_length=80, blank=True)  # blank: the player picks
    options = models.JSONField(default=dict, blank=True)
    visibility = models.CharField(max_length=8, choices=Visibility.choices, default=Visibility.PUBLIC)
    open = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return self.label


class RollRequestTarget(models.Model):
    request = models.ForeignKey(RollRequest, on_delete=models.CASCADE, related_name="targets")
    character = models.ForeignKey("sheets.Character", on_delete=models.CASCADE, related_name="roll_requests")
    entry = models.OneToOneField(
        FeedEntry, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["request", "character"], name="one_answer_per_character")
        ]

    def __str__(self) -> str:
        return f"{self.request} for {self.character}"
