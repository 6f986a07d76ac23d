"""Play at the table: encounters the GM runs and the rolls the GM asks for."""

import json

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.urls import reverse

from campaigns.models import Campaign, FeedEntry, Visibility
from campaigns.validators import check_json_object
from rules import notation
from rules.dice import RulesError
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

    # What a move changes (play.encounters._save writes them back; the version was claimed before).
    PLAY_COLUMNS = ("status", "round", "turn", "state")

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
    # A quick NPC's portrait: the stored file's name under MEDIA_ROOT/portraits (sheets/portraits.py, random,
    # never the uploader's), "" when none; a combatant with a character shows the character's own.
    portrait = models.CharField(max_length=64, blank=True, default="")

    # A few numbers and flags per combatant; a system storing more than this is storing the wrong thing.
    MAX_JSON_CHARS = 20_000

    class Meta:
        ordering = ["position", "pk"]

    def __str__(self) -> str:
        return self.name

    # What the rules change in play: the columns an encounter's moves write back.
    PLAY_COLUMNS = ("initiative", "position", "stats", "state", "out")

    def play_columns(self) -> tuple:
        """The play columns as they would be stored: the JSON ones as text, so a picture taken when the
        row is read is not changed by the rules changing its dicts in place."""
        return tuple(
            json.dumps(value, sort_keys=True) if isinstance(value, (dict, list)) else value
            for value in (getattr(self, column) for column in self.PLAY_COLUMNS)
        )

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


class SavedRoll(models.Model):
    """A named dice-box line a user keeps to roll with one click: for one character, or for themselves.

    It belongs to its owner alone, the GM included (a GM's saved rolls are the GM's, e.g. secret NPC
    rolls); nobody else sees or rolls it. Rolling it is a dice-box roll (play/saved_rolls.py).
    """

    MAX_NAME = 40
    MAX_PER_SCOPE = 30  # saved rolls per owner and character (or per owner "for myself")

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="saved_rolls")
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="saved_rolls")
    # None: the owner rolls it as themselves, not as a character.
    character = models.ForeignKey(
        Character, on_delete=models.CASCADE, null=True, blank=True, related_name="saved_rolls"
    )
    name = models.CharField(max_length=MAX_NAME)
    # As typed; read by rules.notation when saved and again when rolled.
    line = models.CharField(max_length=200)
    visibility = models.CharField(max_length=8, choices=Visibility.choices, default=Visibility.PUBLIC)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name", "pk"]
        constraints = [
            # NULLs are distinct in a unique constraint, so "for myself" needs its own.
            models.UniqueConstraint(
                "owner", "character", models.functions.Lower("name"),
                condition=models.Q(character__isnull=False),
                name="one_saved_roll_name_per_character",
            ),
            models.UniqueConstraint(
                "owner", "campaign", models.functions.Lower("name"),
                condition=models.Q(character__isnull=True),
                name="one_saved_roll_name_per_owner",
            ),
        ]

    def __str__(self) -> str:
        return self.name

    def clean(self) -> None:
        """The line must read as the dice box reads it; the character must be one the owner rolls as."""
        errors = {}
        self.name = " ".join(str(self.name).split())
        self.line = str(self.line).strip()
        if not self.name:
            errors["name"] = "Give the roll a name."
        try:
            notation.parse(self.line)
        except RulesError as error:  # NotationError names the character at fault, as the dice box says
            errors["line"] = str(error)
        if self.character_id is not None and self.campaign_id is not None:
            character = self.character
            if character.campaign_id != self.campaign_id or not (
                character.owner_id == self.owner_id or self.campaign.gm_id == self.owner_id
            ):
                errors["character"] = "You can only save rolls for your own characters."
        if self.name and self.owner_id is not None and "character" not in errors:
            same = SavedRoll.objects.filter(
                owner_id=self.owner_id, campaign_id=self.campaign_id, character_id=self.character_id,
                name__iexact=self.name,
            ).exclude(pk=self.pk)
            if same.exists():
                errors["name"] = f"You already have a saved roll called “{self.name}” here."
        if errors:
            raise ValidationError(errors)
