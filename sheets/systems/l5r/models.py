from django.db import models
from django.db.models import Q

from rules import l5r


class L5RSheet(models.Model):
    character = models.OneToOneField("sheets.Character", on_delete=models.CASCADE, related_name="l5r")
    stamina = models.PositiveSmallIntegerField(default=2)
    willpower = models.PositiveSmallIntegerField(default=2)
    strength = models.PositiveSmallIntegerField(default=2)
    perception = models.PositiveSmallIntegerField(default=2)
    agility = models.PositiveSmallIntegerField(default=2)
    intelligence = models.PositiveSmallIntegerField(default=2)
    reflexes = models.PositiveSmallIntegerField(default=2)
    awareness = models.PositiveSmallIntegerField(default=2)
    void = models.PositiveSmallIntegerField(default=2)
    void_spent = models.PositiveSmallIntegerField(default=0)
    school = models.CharField(max_length=80, blank=True)
    school_rank = models.PositiveSmallIntegerField(default=1)
    wounds = models.PositiveSmallIntegerField(default=0)
    # The worn armor (rules.l5r.ARMORS, 4th edition): its bonus to the Armor TN (light +5, heavy +10) and
    # its Reduction, taken off every damage roll that hits (light 3, heavy 5); 0 and 0 for none.
    armor = models.PositiveSmallIntegerField(default=0)
    reduction = models.PositiveSmallIntegerField(default=0)
    # Experience the GM has awarded since creation; what is unspent is derived (sheet.xp_left).
    xp_awarded = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(**{f"{trait}__gte": 1 for trait in l5r.TRAITS})
                & Q(**{f"{trait}__lte": 10 for trait in l5r.TRAITS})
                & Q(void__gte=1, void__lte=10),
                name="l5r_traits_1_to_10",
            ),
            models.CheckConstraint(
                condition=Q(school_rank__gte=1, school_rank__lte=10), name="l5r_school_rank"
            ),
            models.CheckConstraint(condition=Q(armor__lte=l5r.ARMOR_MAX), name="l5r_armor_bonus"),
            models.CheckConstraint(condition=Q(reduction__lte=l5r.REDUCTION_MAX), name="l5r_reduction"),
        ]

    def __str__(self) -> str:
        return f"L5R sheet of {self.character}"

    def trait_values(self) -> dict[str, int]:
        return {trait: getattr(self, trait) for trait in l5r.TRAITS}


class L5RSkill(models.Model):
    character = models.ForeignKey("sheets.Character", on_delete=models.CASCADE, related_name="l5r_skills")
    name = models.CharField(max_length=60)
    rank = models.PositiveSmallIntegerField(default=1)
    # The trait it usually rolls with (rules.l5r.SKILLS); "void" for the few that use Void.
    trait = models.CharField(max_length=16)
    emphasis = models.CharField(max_length=60, blank=True)

    class Meta:
        ordering = ["name", "pk"]
        constraints = [
            models.CheckConstraint(condition=Q(rank__lte=10), name="l5r_skill_rank_0_to_10"),
            models.UniqueConstraint(fields=["character", "name"], name="l5r_skill_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.name} {self.rank}"


class L5RWeapon(models.Model):
    character = models.ForeignKey("sheets.Character", on_delete=models.CASCADE, related_name="l5r_weapons")
    name = models.CharField(max_length=60)
    rolled = models.PositiveSmallIntegerField()
    kept = models.PositiveSmallIntegerField()
    # Bows add their own strength to the arrow's DR instead of the wielder's Strength.
    bow_strength = models.PositiveSmallIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["name", "pk"]
        constraints = [
            models.CheckConstraint(
                condition=Q(rolled__lte=10, kept__gte=1, kept__lte=10), name="l5r_weapon_dr"
            )
        ]

    def __str__(self) -> str:
        return f"{self.name} {self.rolled}k{self.kept}"
