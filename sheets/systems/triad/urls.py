from django.urls import path

from . import views

urlpatterns = [
    path(
        "campaigns/<id:campaign_id>/characters/triad-preview/",
        views.triad_builder_preview,
        name="triad_builder_preview",
    ),
    path("characters/<id:character_id>/triad/rest/", views.rest, name="triad_rest"),
    path("characters/<id:character_id>/triad/traits/add/", views.trait_add, name="triad_trait_add"),
    path("characters/<id:character_id>/triad/traits/remove/", views.trait_remove, name="triad_trait_remove"),
]
