from django.urls import path

from . import views, views_fivebyfive, views_l5r, views_requests

urlpatterns = [
    path("campaigns/<int:campaign_id>/characters/new/", views.character_new, name="character_new"),
    path("campaigns/<int:campaign_id>/characters/import/", views.character_import, name="character_import"),
    path(
        "campaigns/<int:campaign_id>/characters/l5r-preview/",
        views_l5r.l5r_builder_preview,
        name="l5r_builder_preview",
    ),
    path("characters/<int:character_id>/", views.sheet, name="sheet"),
    path("characters/<int:character_id>/field/<str:path>/", views.sheet_field, name="sheet_field"),
    path("characters/<int:character_id>/buttons/", views.sheet_buttons, name="sheet_buttons"),
    path("characters/<int:character_id>/roll/<str:key>/", views.sheet_roll, name="sheet_roll"),
    path("characters/<int:character_id>/export/", views.sheet_export, name="sheet_export"),
    path("characters/<int:character_id>/history/", views.sheet_history, name="sheet_history"),
    path("characters/<int:character_id>/history/<int:change_id>/undo/", views.sheet_undo, name="sheet_undo"),
    path("characters/<int:character_id>/xp/award/", views_fivebyfive.xp_award, name="fivebyfive_xp_award"),
    path("characters/<int:character_id>/xp/spend/", views_fivebyfive.xp_spend, name="fivebyfive_xp_spend"),
    path("campaigns/<int:campaign_id>/requests/", views_requests.requests_gm, name="requests_gm"),
    path("characters/<int:character_id>/requests/", views_requests.sheet_requests, name="sheet_requests"),
    path("characters/<int:character_id>/requests/<int:target_id>/roll/", views_requests.sheet_request_roll,
         name="sheet_request_roll"),
]
