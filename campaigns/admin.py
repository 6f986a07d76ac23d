from django.contrib import admin

from .models import Campaign, Membership


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0
    raw_id_fields = ["user"]


@admin.register(Campaign)
class CampaignAdmin(admin.ModelAdmin):
    list_display = ["name", "system", "gm", "created_at"]
    list_filter = ["system"]
    search_fields = ["name", "gm__username"]
    raw_id_fields = ["gm"]
    inlines = [MembershipInline]


@admin.register(Membership)
class MembershipAdmin(admin.ModelAdmin):
    list_display = ["campaign", "user", "joined_at"]
    raw_id_fields = ["campaign", "user"]
