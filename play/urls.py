from django.urls import path

from . import encounter_panel, encounter_views, portraits, request_views, saved_roll_views

urlpatterns = [
    path("campaigns/<id:campaign_id>/encounters/", encounter_views.encounter_list, name="encounters"),
    path("campaigns/<id:campaign_id>/encounters/panel/", encounter_panel.encounter_panel,
         name="encounter_panel"),
    path("campaigns/<id:campaign_id>/encounters/<id:encounter_id>/", encounter_views.encounter_detail,
         name="encounter"),
    path("campaigns/<id:campaign_id>/encounters/<id:encounter_id>/<slug:verb>/",
         encounter_views.encounter_action, name="encounter_action"),
    # A quick NPC's portrait: seen by the table, changed by the GM (play/portraits.py).
    path("campaigns/<id:campaign_id>/encounters/<id:encounter_id>/npcs/<id:combatant_id>/portrait/",
         portraits.npc_portrait, name="npc_portrait"),
    path("campaigns/<id:campaign_id>/encounters/<id:encounter_id>/npcs/<id:combatant_id>/portrait/remove/",
         portraits.npc_portrait_remove, name="npc_portrait_remove"),
    # A player's turn: the panel on the table page and on their sheet, acting from it, and the odds.
    path("campaigns/<id:campaign_id>/turn/", encounter_views.turn_panel, name="turn_panel"),
    path("campaigns/<id:campaign_id>/turn/<id:encounter_id>/act/", encounter_views.turn_act,
         name="turn_act"),
    path("campaigns/<id:campaign_id>/turn/<id:encounter_id>/odds/", encounter_views.encounter_odds,
         name="encounter_odds"),
    # The defence a player chooses when an attack on their character waits for it, and its odds.
    path("campaigns/<id:campaign_id>/turn/<id:encounter_id>/defend/", encounter_views.turn_defend,
         name="turn_defend"),
    path("campaigns/<id:campaign_id>/turn/<id:encounter_id>/defence-odds/", encounter_views.defence_odds,
         name="defence_odds"),
    path("characters/<id:character_id>/turn/", encounter_views.sheet_turn, name="sheet_turn"),
    path("campaigns/<id:campaign_id>/requests/", request_views.requests_gm, name="requests_gm"),
    path("campaigns/<id:campaign_id>/requests/<id:request_id>/result/", request_views.request_result,
         name="request_result"),
    path("characters/<id:character_id>/requests/", request_views.sheet_requests, name="sheet_requests"),
    path("characters/<id:character_id>/requests/<id:target_id>/roll/", request_views.sheet_request_roll,
         name="sheet_request_roll"),
    path("campaigns/<id:campaign_id>/saved-rolls/", saved_roll_views.table_saved_rolls,
         name="table_saved_rolls"),
    path("campaigns/<id:campaign_id>/saved-rolls/<id:saved_id>/roll/", saved_roll_views.table_saved_roll,
         name="table_saved_roll"),
    path("campaigns/<id:campaign_id>/saved-rolls/<id:saved_id>/delete/",
         saved_roll_views.table_saved_roll_delete, name="table_saved_roll_delete"),
    path("characters/<id:character_id>/saved-rolls/", saved_roll_views.sheet_saved_rolls,
         name="sheet_saved_rolls"),
    path("characters/<id:character_id>/saved-rolls/<id:saved_id>/roll/", saved_roll_views.sheet_saved_roll,
         name="sheet_saved_roll"),
    path("characters/<id:character_id>/saved-rolls/<id:saved_id>/delete/",
         saved_roll_views.sheet_saved_roll_delete, name="sheet_saved_roll_delete"),
]
