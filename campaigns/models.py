import secrets

from django.conf import settings
from django.db import models
from django.urls import reverse


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
