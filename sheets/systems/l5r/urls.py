from django.urls import path

from . import views

urlpatterns = [
    path(
        "campaigns/<id:campaign_id>/characters/l5r-preview/",
        views.l5r_builder_preview,
        name="l5r_builder_preview",
    ),
    path(
        "characters/<id:character_id>/l5r/after-roll/<str:cursor>/choice/",
        views.l5r_rekeep_choice,
        name="l5r_rekeep_choice",
    ),
    path(
        "characters/<id:character_id>/l5r/after-roll/<str:cursor>/",
        views.l5r_after_roll,
        name="l5r_after_roll",
    ),
]
