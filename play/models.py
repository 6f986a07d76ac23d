"""Play at the table: encounters the GM runs and the rolls the GM asks for."""

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.urls import reverse

from campaigns.models import Campaign, FeedEntry, Visibility
from campaigns.validators import check_json_object
from sheets.combat import Side
from sheets.models import Character


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
    # What the system tracks across turns (declared actions, who stole initiative, ...).
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

    Side = Side

    encounter = models.ForeignKey(Encounter, on_delete=models.CASCADE, related_name="combatants")
    character = models.ForeignKey(
        Character, on_delete=models.CASCADE, null=True, blank=True, related_name="combatants"
    )
    name = models.CharField(max_length=80)
    side = models.CharField(max_length=8, choices=Side.choices)
    initiative = models.IntegerField(null=True, blank=True)
    position = models.PositiveIntegerField(default=0)
    # A quick NPC's numbers (a difficulty, a few descriptors or traits, attributes, its damage).
    stats = models.JSONField(default=dict, blank=True)
    # Per-round bits the rules track: dodges used, actions taken, stunned, dice declared.
    state = models.JSONField(default=dict, blank=True)
    out = models.BooleanField(default=False)

    # A few numbers and flags per combatant; a system storing more than this is storing the wrong thing.
    MAX_JSON_CHARS = 20_000

    class Meta:
        ordering = ["position", "pk"]

    def __str__(self) -> str:
        return self.name

    def clean(self) -> None:
        errors = {}
        for column in ("stats", "state"):
            try:
                check_json_object(
                    getattr(self, column),
                    what=f"{self.name or 'The combatant'}'s {column}",
                    max_chars=self.MAX_JSON_CHARS,
                )
            except ValidationError as error:
                errors[column] = error.messages
        if errors:
            raise ValidationError(errors)


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
    character = models.ForeignKey(Character, on_delete=models.CASCADE, related_name="roll_requests")
    entry = models.OneToOneField(
        FeedEntry, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["request", "character"], name="one_answer_per_character")
        ]

    def __str__(self) -> str:
        return f"{self.request} for {self.character}"
