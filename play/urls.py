from django.urls import path

from . import encounter_views, request_views

urlpatterns = [
    path("campaigns/<int:campaign_id>/encounters/", encounter_views.encounter_list, name="encounters"),
    path("campaigns/<int:campaign_id>/encounters/panel/", encounter_views.encounter_panel,
         name="encounter_panel"),
    path("campaigns/<int:campaign_id>/encounters/<int:encounter_id>/", encounter_views.encounter_detail,
         name="encounter"),
    path("campaigns/<int:campaign_id>/encounters/<int:encounter_id>/<slug:verb>/",
         encounter_views.encounter_action, name="encounter_action"),
    path("campaigns/<int:campaign_id>/requests/", request_views.requests_gm, name="requests_gm"),
    path("characters/<int:character_id>/requests/", request_views.sheet_requests, name="sheet_requests"),
    path("characters/<int:character_id>/requests/<int:target_id>/roll/", request_views.sheet_request_roll,
         name="sheet_request_roll"),
]
