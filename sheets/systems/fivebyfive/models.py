from django.db import models
from django.db.models import Q

from rules import fivebyfive

RANK_CHOICES = [(value, str(value)) for value in fivebyfive.RANKS]
#: An aspect's rating is the rank shift it gives every action it governs (Optional Rule: Aspects).
ASPECT_RATING_CHOICES = [(int(r), r.name.capitalize()) for r in fivebyfive.AspectRating]
ASPECT_NAMES = tuple(a.value for a in fivebyfive.Aspect)


class FiveByFiveSheet(models.Model):
    character = models.OneToOneField("sheets.Character", on_delete=models.CASCADE, related_name="fivebyfive")
    # HP is ranked among the descriptors; its rank sets the maximum (rank + 10).
    hp_rank = models.SmallIntegerField(choices=RANK_CHOICES, default=2)
    hp = models.SmallIntegerField(default=12)
    doubles_token = models.BooleanField(default=False)
    xp = models.PositiveIntegerField(default=0)
    weapon = models.CharField(max_length=60, blank=True)
    weapon_db = models.SmallIntegerField(default=0)
    armor = models.CharField(max_length=60, blank=True)
    armor_av = models.SmallIntegerField(default=0)
    shield = models.BooleanField(default=False)
    offhand_dagger = models.BooleanField(default=False)
    # The four character-wide aspects; Average (0) unless the campaign plays the optional rule.
    agility = models.SmallIntegerField(choices=ASPECT_RATING_CHOICES, default=0)
    brawn = models.SmallIntegerField(choices=ASPECT_RATING_CHOICES, default=0)
    cognition = models.SmallIntegerField(choices=ASPECT_RATING_CHOICES, default=0)
    determination = models.SmallIntegerField(choices=ASPECT_RATING_CHOICES, default=0)
    # The dying clock: minutes already run toward the next lost HP, counted at HP ``bleed_hp``. Any other
    # change of HP (a hit, healing, an edit) restarts the count, so nothing else needs to reset it.
    bleed_minutes = models.PositiveSmallIntegerField(default=0)
    bleed_hp = models.SmallIntegerField(null=True, blank=True)

    class Meta:
        constraints = [
            *(
                models.CheckConstraint(
                    condition=Q(**{f"{name}__gte": -1, f"{name}__lte": 1}), name=f"fbf_{name}_rating"
                )
                for name in ASPECT_NAMES
            ),
            models.CheckConstraint(condition=Q(hp_rank__in=fivebyfive.RANKS), name="fbf_hp_rank_on_ladder"),
            models.CheckConstraint(condition=Q(armor_av__lte=0, armor_av__gte=-6), name="fbf_armor_av_range"),
            models.CheckConstraint(
                condition=Q(weapon_db__gte=0, weapon_db__lte=10), name="fbf_weapon_db_range"
            ),
        ]

    def __str__(self) -> str:
        return f"Five by Five sheet of {self.character}"

    @property
    def bled_minutes(self) -> int:
        """Minutes already run toward the next lost HP at the current HP (0 once HP moved otherwise)."""
        return self.bleed_minutes if self.bleed_hp == self.hp else 0


class FiveByFiveDescriptor(models.Model):
    character = models.ForeignKey("sheets.Character", on_delete=models.CASCADE, related_name="descriptors")
    name = models.CharField(max_length=60)
    value = models.SmallIntegerField(choices=RANK_CHOICES)
    # Importance order from the builder's ranking: 0 is the most important.
    position = models.PositiveSmallIntegerField(default=0)
    exclusive_action = models.CharField(max_length=60, blank=True)
    advanced = models.BooleanField(default=False)

    class Meta:
        ordering = ["position", "pk"]
        constraints = [
            models.CheckConstraint(condition=Q(value__in=fivebyfive.RANKS), name="fbf_descriptor_on_ladder"),
            models.UniqueConstraint(fields=["character"], condition=Q(value=16), name="fbf_one_sixteen"),
            models.UniqueConstraint(fields=["character"], condition=Q(value=-5), name="fbf_one_poor"),
            models.UniqueConstraint(fields=["character", "name"], name="fbf_descriptor_names_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.name} {self.value}"
