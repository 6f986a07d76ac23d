from django.conf import settings
from django.db import models


class SheetChange(models.Model):
    """One recorded change to a sheet: who, when, why, and each value before and after.

    ``before`` and ``after`` map a value's address ("<model>:<pk>:<field>") to its value, holding only
    what changed, so an undo writes back exactly those values and nothing else.
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
        """(what, before, after) for display: "triadsheet:3:body" reads as "body"."""
        missing = {"$missing": True}
        return [
            (key.rsplit(":", 1)[-1].removesuffix("_id").replace("_", " "),
             "-" if value == missing else value,
             "-" if self.after.get(key) == missing else self.after.get(key))
            for key, value in self.before.items()
        ]
