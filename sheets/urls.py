from django.urls import path

from . import views

urlpatterns = [
    path("campaigns/<int:campaign_id>/characters/new/", views.character_new, name="character_new"),
    path("campaigns/<int:campaign_id>/characters/import/", views.character_import, name="character_import"),
    path("characters/<int:character_id>/", views.sheet, name="sheet"),
    path("characters/<int:character_id>/field/<str:path>/", views.sheet_field, name="sheet_field"),
    path("characters/<int:character_id>/buttons/", views.sheet_buttons, name="sheet_buttons"),
    path("characters/<int:character_id>/roll/<str:key>/", views.sheet_roll, name="sheet_roll"),
    path("characters/<int:character_id>/export/", views.sheet_export, name="sheet_export"),
]
