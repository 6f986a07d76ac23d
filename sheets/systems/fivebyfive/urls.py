from django.urls import path

from . import views

urlpatterns = [
    path("characters/<int:character_id>/xp/award/", views.xp_award, name="fivebyfive_xp_award"),
    path("characters/<int:character_id>/xp/spend/", views.xp_spend, name="fivebyfive_xp_spend"),
]
