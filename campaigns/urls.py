from django.urls import path

from . import views

urlpatterns = [
    path("", views.landing, name="landing"),
    path("dashboard/", views.dashboard, name="dashboard"),
    path("campaigns/new/", views.campaign_create, name="campaign_create"),
    path("campaigns/<id:campaign_id>/", views.campaign_detail, name="campaign_detail"),
    path("campaigns/<id:campaign_id>/edit/", views.campaign_edit, name="campaign_edit"),
    path("campaigns/<id:campaign_id>/invite/rotate/", views.invite_rotate, name="invite_rotate"),
    path("campaigns/<id:campaign_id>/feed/check/", views.feed_check, name="feed_check"),
    path(
        "campaigns/<id:campaign_id>/members/<id:user_id>/remove/", views.member_remove, name="member_remove"
    ),
    path("campaigns/<id:campaign_id>/leave/", views.campaign_leave, name="campaign_leave"),
    path("campaigns/<id:campaign_id>/table/", views.table, name="table"),
    path("campaigns/<id:campaign_id>/table/feed/", views.table_feed, name="table_feed"),
    path("campaigns/<id:campaign_id>/table/roll/", views.table_roll, name="table_roll"),
    path("campaigns/<id:campaign_id>/table/chat/", views.table_chat, name="table_chat"),
    path("campaigns/<id:campaign_id>/table/odds/", views.table_odds, name="table_odds"),
    path("join/<str:token>/", views.campaign_join, name="campaign_join"),
]
