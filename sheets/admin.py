from django.contrib import admin

from .models import Character, SheetChange


@admin.register(Character)
class CharacterAdmin(admin.ModelAdmin):
    list_display = ["name", "campaign", "owner", "is_npc", "version", "updated_at"]
    list_filter = ["campaign__system", "is_npc"]
    search_fields = ["name", "owner__username", "campaign__name"]
    raw_id_fields = ["campaign", "owner"]


@admin.register(SheetChange)
class SheetChangeAdmin(admin.ModelAdmin):
    list_display = ["character", "reason", "author", "created_at"]
    search_fields = ["character__name", "reason"]
    raw_id_fields = ["character", "author", "undoes"]
