from django.urls import path

from . import views

urlpatterns = [
    path("characters/<id:character_id>/freefall/kit/", views.kit, name="freefall_kit"),
    path("characters/<id:character_id>/freefall/rest/", views.sheet_rest, name="freefall_rest"),
    path(
        "characters/<id:character_id>/freefall/spend/<str:attribute>/",
        views.attribute_spend,
        name="freefall_spend",
    ),
    path(
        "characters/<id:character_id>/freefall/gear/<id:gear_id>/repair/",
        views.gear_repair,
        name="freefall_repair",
    ),
]
