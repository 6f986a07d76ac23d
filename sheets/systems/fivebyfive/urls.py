from django.urls import path

from . import views

urlpatterns = [
    path("characters/<id:character_id>/fivebyfive/time/", views.time_passes, name="fivebyfive_time_passes"),
    path("characters/<id:character_id>/fivebyfive/rest/", views.rest, name="fivebyfive_rest"),
    path("characters/<id:character_id>/fivebyfive/heal/", views.healing_check, name="fivebyfive_heal"),
]
