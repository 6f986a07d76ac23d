from django.urls import path

from . import views

urlpatterns = [
    path(
        "campaigns/<int:campaign_id>/characters/l5r-preview/",
        views.l5r_builder_preview,
        name="l5r_builder_preview",
    ),
]
