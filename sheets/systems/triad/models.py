from django.db import models
from django.db.models import F, Q

from rules import triad

ARMOR_CHOICES = [("", "None")] + [(key, tier.name) for key, tier in triad.ARMOR.items() if tier.points]
WEAPON_CHOICES = [(key, tier.name) for key, tier in triad.WEAPONS.items()]


class TriadSheet(models.Model):
    character = models.OneToOneField("sheets.Character", on_delete=models.CASCADE, related_name="triad")
    # Blank when the GM allowed a character whose totals match no tier.
    tier = models.CharField(max_length=32, blank=True, choices=[(k, t.name) for k, t in triad.TIERS.items()])
    body_max = models.PositiveSmallIntegerField()
    mind_max = models.PositiveSmallIntegerField()
    spirit_max = models.PositiveSmallIntegerField()
    body = models.PositiveSmallIntegerField()
    mind = models.PositiveSmallIntegerField()
    spirit = models.PositiveSmallIntegerField()
    armor = models.CharField(max_length=16, blank=True, choices=ARMOR_CHOICES)
    weapon = models.CharField(max_length=16, default="light", choices=WEAPON_CHOICES)
    stunned = models.BooleanField(default=False)
    # Dying is any current score at 0 (read from the scores); death outlasts the fight, so it is kept.
    dead = models.BooleanField(default=False)
    # Each Hard To ... trait saves its ability once, then waits until that ability is full again.
    hard_to_kill_used = models.BooleanField(default=False)
    hard_to_confuse_used = models.BooleanField(default=False)
    hard_to_unnerve_used = models.BooleanField(default=False)
    # Berserker Rage's advantage waits for the next Body task, which may come in a later turn.
    rage_advantage = models.BooleanField(default=False)
    # What an attack may do instead of damage (Triad l.125), and the GM's ropes and nets (l.63, l.100):
    # they last until broken free, stood up, picked up or unticked, so they outlive a fight.
    grappled = models.BooleanField(default=False)
    restrained = models.BooleanField(default=False)
    prone = models.BooleanField(default=False)
    disarmed = models.BooleanField(default=False)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(body_max__gte=1, body_max__lte=20, mind_max__gte=1, mind_max__lte=20)
                & Q(spirit_max__gte=1, spirit_max__lte=20),
                name="triad_max_1_to_20",
            ),
            models.CheckConstraint(
                condition=Q(body__lte=F("body_max"), mind__lte=F("mind_max"), spirit__lte=F("spirit_max")),
                name="triad_current_at_most_max",
            ),
        ]

    def __str__(self) -> str:
        return f"Triad sheet of {self.character}"

    def vitals(self, traits) -> triad.Vitals:
        """The sheet as the engine's Vitals, with the character's trait names."""
        return triad.Vitals(
            self.body_max,
            self.mind_max,
            self.spirit_max,
            self.body,
            self.mind,
            self.spirit,
            traits=frozenset(traits),
            spent=frozenset(a for a, name in HARD_TO_USED.items() if getattr(self, name)),
            dead=self.dead,
        )

    def store(self, vitals: triad.Vitals) -> list[str]:
        """Copy the engine's Vitals back onto the sheet (unsaved); the names of the fields it sets."""
        for ability in triad.ABILITIES:
            setattr(self, ability, vitals.current(ability))
            setattr(self, HARD_TO_USED[ability], ability in vitals.spent)
        self.dead = vitals.dead
        return [*triad.ABILITIES, *HARD_TO_USED.values(), "dead"]

    @property
    def body_hindrances(self) -> int:
        """Disadvantage sources on every Body task: held (grappled) and tied (restrained), one each."""
        return int(self.grappled) + int(self.restrained)

    @property
    def dying(self) -> bool:
        """Any score at 0: the character cannot act and only crawls (the dead are past dying)."""
        return not self.dead and min(self.body, self.mind, self.spirit) == 0


#: Which flag records that an ability's Hard To ... trait has saved it.
HARD_TO_USED = {
    triad.BODY: "hard_to_kill_used",
    triad.MIND: "hard_to_confuse_used",
    triad.SPIRIT: "hard_to_unnerve_used",
}


class TriadTrait(models.Model):
    class Kind(models.TextChoices):
        TRAIT = "trait", "Trait"
        POWER = "power", "Power"

    character = models.ForeignKey("sheets.Character", on_delete=models.CASCADE, related_name="triad_traits")
    kind = models.CharField(max_length=8, choices=Kind.choices, default=Kind.TRAIT)
    name = models.CharField(max_length=60)
    description = models.CharField(max_length=300, blank=True)
    # (Adv.) traits grant advantage on related tasks and turn a mixed result into a success.
    adv = models.BooleanField(default=False)
    # The ability it usually helps; blank for powers and custom traits that help anything.
    ability = models.CharField(max_length=8, blank=True)
    custom = models.BooleanField(default=False)

    class Meta:
        ordering = ["kind", "name", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["character", "kind", "name"], name="triad_trait_unique")
        ]

    def __str__(self) -> str:
        return f"{self.name}{' (Adv.)' if self.adv else ''}"
