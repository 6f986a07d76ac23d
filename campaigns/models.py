import secrets

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.urls import reverse
from django.utils.functional import cached_property

from . import systems
from .cursors import cursor_for
from .rendering import chance_percent, chat_parts, entry_display
from .validators import validate_feed_result


def new_invite_token() -> str:
    return secrets.token_urlsafe(24)


class Campaign(models.Model):
    name = models.CharField(max_length=80)
    description = models.TextField(max_length=2000, blank=True)
    # A game system's key; the systems register themselves (campaigns/systems.py).
    system = models.CharField(max_length=16, choices=systems.choices)
    gm = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="campaigns_run")
    invite_token = models.CharField(max_length=64, unique=True, default=new_invite_token)
    # Optional rules a GM turns on per table, as the campaign's system registers them (campaigns/systems.py).
    options = models.JSONField(default=dict, blank=True)
    # The last feed sequence number handed out; bumped in the same transaction as the entry.
    last_seq = models.PositiveIntegerField(default=0, editable=False)
    # The hash of the entry numbered last_seq ("" before the first): the next entry follows it
    # (campaigns/chain.py). Kept on this row so the counter's update hands it out under the same lock.
    last_hash = models.CharField(max_length=64, blank=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name", "pk"]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("campaign_detail", args=[self.pk])

    def clean(self) -> None:
        self.options = self.options if self.options is not None else {}
        if not isinstance(self.options, dict):
            raise ValidationError({"options": "The table's options must be a set of named switches."})
        try:
            system = systems.get(self.system)
        except KeyError:
            return  # the system field reports the unknown system itself
        known = {
            key: number
            for key, _label, _help, number in map(systems.option_parts, systems.campaign_options(system.key))
        }
        errors = []
        for key, value in self.options.items():
            number = known.get(key)
            if key not in known:
                errors.append(f"{system.label} has no optional rule called {key!r}.")
            elif number is None and not isinstance(value, bool):
                errors.append(f"The optional rule {key!r} is on or off, not {value!r}.")
            elif number is not None and (
                isinstance(value, bool)
                or not isinstance(value, int)
                or not number.min_value <= value <= number.max_value
            ):
                errors.append(
                    f"{number.label} is a whole number from {number.min_value} to {number.max_value}, "
                    f"not {value!r}."
                )
        if errors:
            raise ValidationError({"options": errors})

    def option_on(self, key: str) -> bool:
        """Whether the on/off option ``key`` (systems.TABLE_OPTIONS or the system's) is turned on."""
        return bool((self.options or {}).get(key))

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


# A whisper: seen by its author, the GM and the members it names (FeedEntry.recipients). Not one of
# Visibility's choices, which every roll form offers (sheets, roll requests): a whisper needs names.
WHISPER = "whisper"
FEED_VISIBILITY_CHOICES = [*Visibility.choices, (WHISPER, "Whisper")]


def by_username(users) -> list:
    """Users in the order a whisper names them: by username, whatever its case."""
    return sorted(users, key=lambda user: (user.username.casefold(), user.pk))


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
    # The character the line is about, as it was named then. A plain id, not a foreign key: characters
    # live in the layer above, and the feed is a record that outlives a renamed or deleted character.
    character_id = models.PositiveBigIntegerField(null=True, blank=True, db_index=True)
    character_name = models.CharField(max_length=80, blank=True)
    # The encounter a line was written in (play's, a plain id for the same reason), its request's
    # "encounter" too: a column so a fight's lines are read by index, not by walking the campaign's history.
    encounter_id = models.PositiveBigIntegerField(null=True, blank=True, editable=False)
    # What was asked, in words ("Amateur Chef 4", "3d6+2") and as data (the options, the notation).
    label = models.CharField(max_length=200)
    request = models.JSONField(default=dict)
    # Every die face, the outcome and what changed on the sheet, as the engine reported it.
    result = models.JSONField(default=dict, blank=True, validators=[validate_feed_result])
    summary = models.CharField(max_length=300, blank=True)
    # The exact chance the roll had before it was made, as "numerator/denominator"; blank if none.
    chance = models.CharField(max_length=80, blank=True)
    visibility = models.CharField(max_length=8, choices=FEED_VISIBILITY_CHOICES, default=Visibility.PUBLIC)
    # A whisper's recipients (none for any other entry); the author and the GM see it without being named.
    recipients = models.ManyToManyField(
        settings.AUTH_USER_MODEL, through="WhisperRecipient", related_name="whispers_received", blank=True
    )
    # NULL, not "", so entries without a key never collide in the unique constraint.
    idempotency_key = models.CharField(max_length=64, null=True, blank=True)  # noqa: DJ001
    created_at = models.DateTimeField(auto_now_add=True)
    # When a hidden roll's pending sheet changes (result["pending"]) were applied; set once, by one
    # conditional update, so a second click applies nothing. Not covered by the hash chain: the entry's
    # content is what was rolled, this is what someone later did with it.
    applied_at = models.DateTimeField(null=True, blank=True, editable=False)
    # The feed's hash chain (campaigns/chain.py): this entry's SHA-256 over its content and the hash of
    # the entry before it in the campaign, so a row changed behind the app's back is found. For the GM's
    # check and the verify_feed command only: never drawn on a page nor sent in a frame (it would say
    # how many hidden entries lie between two a player sees).
    hash = models.CharField(max_length=64, blank=True, editable=False)
    prev_hash = models.CharField(max_length=64, blank=True, editable=False)

    class Meta:
        # campaign_id, not campaign: the foreign key would join campaigns into every query of the feed
        # (to order by the campaign's name) and keep it off the (campaign, seq) index.
        ordering = ["campaign_id", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "seq"], name="one_seq_per_campaign_entry"),
            models.UniqueConstraint(
                fields=["campaign", "author", "idempotency_key"], name="one_entry_per_idempotency_key"
            ),
        ]
        indexes = [
            models.Index(fields=["campaign", "-seq"], name="feed_newest_first"),
            models.Index(fields=["campaign", "encounter_id", "-seq"], name="feed_by_encounter"),
        ]

    def __str__(self) -> str:
        return f"#{self.seq} {self.label}"

    @cached_property
    def display(self) -> dict | None:
        """The result as groups of dice for the feed template (shapes in campaigns/rendering.py)."""
        return entry_display(self.result)

    @cached_property
    def chat_parts(self) -> list[dict]:
        """A chat line's text and its inline ``[[rolls]]`` (campaigns/rendering.py)."""
        return chat_parts(self)

    @property
    def chance_percent(self) -> str:
        return chance_percent(self.chance)

    @cached_property
    def whisper_to(self) -> list:
        """A whisper's recipients in name order ([] for any other entry, without a query).

        The service sets it on a new entry and the feed's selectors for a whole page in one query.
        """
        if self.visibility != WHISPER:
            return []
        return by_username(self.recipients.all())

    @cached_property
    def cursor(self) -> str:
        """What pages and frames carry instead of ``seq``, which would count hidden entries (cursors.py)."""
        return cursor_for(self.campaign_id, self.seq)


class WhisperRecipient(models.Model):
    """One member a whisper is addressed to. The unique index (entry, user) answers the feed's
    "is this whisper for me" for a page of entries in the same query that reads them."""

    entry = models.ForeignKey(FeedEntry, on_delete=models.CASCADE, related_name="whisper_rows")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["entry", "user"], name="one_row_per_whisper_recipient"),
        ]

    def __str__(self) -> str:
        return f"whisper #{self.entry_id} to {self.user_id}"
