from django.conf import settings
from django.db import models
from django.db.models import F
from django.urls import reverse


class StaleVersion(Exception):
    """The sheet changed since the editor loaded it (another tab, or the GM)."""

    def __init__(self, current_version: int):
        super().__init__("This sheet was changed elsewhere.")
        self.current_version = current_version


class Character(models.Model):
    """A character at a campaign's table; its system is the campaign's, its details live per system."""

    campaign = models.ForeignKey("campaigns.Campaign", on_delete=models.CASCADE, related_name="characters")
    # The player who plays it; for an NPC, the GM who runs it.
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="characters")
    name = models.CharField(max_length=80)
    is_npc = models.BooleanField(default=False)
    notes = models.TextField(max_length=4000, blank=True)
    # The stored file's name under MEDIA_ROOT/portraits (random, never the uploader's), "" when none.
    portrait = models.CharField(max_length=64, blank=True, default="")
    # Bumped by every change; a save that carries an older number is refused (see claim_version).
    version = models.PositiveIntegerField(default=1)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        # campaign_id, not campaign: ordering by the foreign key itself would join the campaign's table
        # into every query of characters, to order by the campaign's own ordering (its name).
        ordering = ["campaign_id", "is_npc", "name", "pk"]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("sheet", args=[self.pk])

    @property
    def system(self) -> str:
        return self.campaign.system

    @property
    def table_portrait(self) -> str:
        """The portrait's stored name if every seat at the table may see it: "" for none, and for an NPC's,
        which is the GM's alone (selectors.character_for_viewer). Its query side: portraits.feed_portrait."""
        return "" if self.is_npc else self.portrait

    def can_edit(self, user) -> bool:
        return user.is_authenticated and (user.pk == self.owner_id or self.campaign.is_gm(user))

    def claim_version(self, expected: int) -> int:
        """Atomically move the version on from ``expected``; raise StaleVersion if it moved already.

        Call inside the transaction that makes the change, so a failed change rolls the bump back.
        """
        claimed = Character.objects.filter(pk=self.pk, version=expected).update(
            version=F("version") + 1, updated_at=models.functions.Now()
        )
        if not claimed:
            raise StaleVersion(Character.objects.values_list("version", flat=True).get(pk=self.pk))
        self.version = expected + 1
        return self.version




class SheetChange(models.Model):
    """One recorded change to a sheet: who, when, why, and each value before and after.

    ``before`` and ``after`` map a value's address ("<model>:<pk>:<field>") to its value, holding only
    what changed, so an undo writes back exactly those values and nothing else. A row added or removed
    has every value on one side and ``{"$missing": true}`` on the other: enough for an undo to take it
    off, or to put it back with its id.
    """

    character = models.ForeignKey("sheets.Character", on_delete=models.CASCADE, related_name="changes")
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True,
                               related_name="sheet_changes")
    reason = models.CharField(max_length=200)
    before = models.JSONField(default=dict)
    after = models.JSONField(default=dict)
    undoes = models.OneToOneField("self", on_delete=models.SET_NULL, null=True, blank=True,
                                  related_name="undone_by")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"{self.reason} ({self.character})"

    def rows(self) -> list[tuple[str, object, object]]:
        """(what, before, after) for display: "<model>:3:body" reads as "body"."""
        missing = {"$missing": True}
        return [
            (key.rsplit(":", 1)[-1].removesuffix("_id").replace("_", " "),
             "-" if value == missing else value,
             "-" if self.after.get(key) == missing else self.after.get(key))
            for key, value in self.before.items()
        ]
