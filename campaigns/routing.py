from django.urls import path

from .consumers import TableConsumer

websocket_urlpatterns: list = [
    path("ws/campaigns/<id:campaign_id>/table/", TableConsumer.as_asgi()),
]
