from django.urls import include, path

from . import portraits, recent, views, xp
from .registry import game_systems

urlpatterns = [
    path("campaigns/<id:campaign_id>/characters/new/", views.character_new, name="character_new"),
    path("campaigns/<id:campaign_id>/characters/import/", views.character_import, name="character_import"),
    path("campaigns/<id:campaign_id>/table/party/", views.table_party, name="table_party"),
    path("characters/<id:character_id>/", views.sheet, name="sheet"),
    path("characters/<id:character_id>/field/<str:path>/", views.sheet_field, name="sheet_field"),
    path("characters/<id:character_id>/buttons/", views.sheet_buttons, name="sheet_buttons"),
    path("characters/<id:character_id>/roll/<str:key>/", views.sheet_roll, name="sheet_roll"),
    path(
        "characters/<id:character_id>/rolls/<str:cursor>/apply/",
        views.sheet_roll_apply,
        name="sheet_roll_apply",
    ),
    path("characters/<id:character_id>/export/", views.sheet_export, name="sheet_export"),
    path("characters/<id:character_id>/history/", views.sheet_history, name="sheet_history"),
    path("characters/<id:character_id>/recent/", recent.sheet_recent, name="sheet_recent"),
    path("characters/<id:character_id>/history/<id:change_id>/undo/", views.sheet_undo, name="sheet_undo"),
    path(
        "characters/<id:character_id>/history/download.<str:kind>",
        views.sheet_history_export,
        name="sheet_history_export",
    ),
    path("characters/<id:character_id>/portrait/", portraits.portrait, name="portrait"),
    path("characters/<id:character_id>/portrait/remove/", portraits.portrait_remove, name="portrait_remove"),
    path("characters/<id:character_id>/xp/award/", xp.xp_award, name="xp_award"),
    path("characters/<id:character_id>/xp/spend/", xp.xp_spend, name="xp_spend"),
]
# Views only one system has (a builder's live preview, a rest action) come from that system's own urls.py.
urlpatterns += [path("", include(config.urls.urlpatterns)) for config in game_systems() if config.urls]
