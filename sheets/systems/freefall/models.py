from django.db import models
from django.db.models import Q

from rules import freefall

ATTRIBUTE_CHOICES = [("body", "Body"), ("mind", "Mind"), ("ghost", "Ghost")]
HARM_STATE_CHOICES = [(state.value, state.value.title()) for state in freefall.SlotState]
HARM_KIND_CHOICES = [("", "-")] + [(kind.value, kind.value.title()) for kind in freefall.HarmKind]


class FreeFallSheet(models.Model):
    character = models.OneToOneField("sheets.Character", on_delete=models.CASCADE, related_name="freefall")
    character_class = models.CharField(max_length=60)
    specialty = models.CharField(max_length=60)
    body_perm = models.PositiveSmallIntegerField()
    mind_perm = models.PositiveSmallIntegerField()
    ghost_perm = models.PositiveSmallIntegerField()
    # Points spent this mission; the current value is permanent - binding - spent.
    body_spent = models.PositiveSmallIntegerField(default=0)
    mind_spent = models.PositiveSmallIntegerField(default=0)
    ghost_spent = models.PositiveSmallIntegerField(default=0)
    harm1_state = models.CharField(max_length=8, choices=HARM_STATE_CHOICES, default="empty")
    harm1_kind = models.CharField(max_length=12, choices=HARM_KIND_CHOICES, blank=True)
    harm2_state = models.CharField(max_length=8, choices=HARM_STATE_CHOICES, default="empty")
    harm2_kind = models.CharField(max_length=12, choices=HARM_KIND_CHOICES, blank=True)
    harm3_state = models.CharField(max_length=8, choices=HARM_STATE_CHOICES, default="empty")
    harm3_kind = models.CharField(max_length=12, choices=HARM_KIND_CHOICES, blank=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(body_perm__lte=freefall.ATTRIBUTE_MAX, mind_perm__lte=freefall.ATTRIBUTE_MAX)
                & Q(ghost_perm__lte=freefall.ATTRIBUTE_MAX),
                name="ff_attributes_in_range",
            ),
        ]

    def __str__(self) -> str:
        return f"FREE/FALL sheet of {self.character}"


class FreeFallGear(models.Model):
    class Condition(models.TextChoices):
        OK = "ok", "OK"
        FAULTY = "faulty", "Faulty"
        BROKEN = "broken", "Broken"

    character = models.ForeignKey("sheets.Character", on_delete=models.CASCADE, related_name="ff_gear")
    name = models.CharField(max_length=60)
    binds = models.CharField(max_length=8, choices=ATTRIBUTE_CHOICES, blank=True)
    binding = models.PositiveSmallIntegerField(default=0)
    av = models.PositiveSmallIntegerField(default=0)
    dv = models.PositiveSmallIntegerField(default=0)
    high_impact = models.BooleanField(default=False)
    piercing = models.BooleanField(default=False)
    hardened = models.BooleanField(default=False)
    load_bearing = models.PositiveSmallIntegerField(default=0)
    attached_to = models.ForeignKey(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    condition = models.CharField(max_length=8, choices=Condition.choices, default=Condition.OK)

    class Meta:
        ordering = ["name", "pk"]
        constraints = [
            models.CheckConstraint(condition=Q(binding=0) | ~Q(binds=""), name="ff_binding_names_attribute"),
        ]

    def __str__(self) -> str:
        return self.name


class FreeFallProgram(models.Model):
    character = models.ForeignKey("sheets.Character", on_delete=models.CASCADE, related_name="ff_programs")
    name = models.CharField(max_length=60)
    type = models.CharField(max_length=8, choices=[(t.value, t.label) for t in freefall.ProgramType])
    tier = models.CharField(max_length=8, choices=[(t.value, t.label) for t in freefall.ProgramTier])
    compromised = models.BooleanField(default=False)

    class Meta:
        ordering = ["name", "pk"]

    def __str__(self) -> str:
        return f"{self.name} ({self.type.upper()} {self.tier.upper()})"
