from django.urls import path

from . import views

urlpatterns = [
    path("characters/<int:character_id>/fivebyfive/time/", views.time_passes, name="fivebyfive_time_passes"),
    path("characters/<int:character_id>/fivebyfive/rest/", views.rest, name="fivebyfive_rest"),
]
