"""The one owner of table group names and of everything broadcast to a table."""

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction


def table_group(campaign_id: int) -> str:
    return f"table-{campaign_id}"


def _send_on_commit(campaign_id: int, event: dict) -> None:
    """Broadcast only once the change is committed, so nobody hears of a rolled-back row."""

    def send() -> None:
        layer = get_channel_layer()
        if layer is None:
            return
        try:
            async_to_sync(layer.group_send)(table_group(campaign_id), event)
        except Exception:  # noqa: BLE001 - a layer outage must not turn a saved change into a 500
            import logging

            logging.getLogger(__name__).exception("broadcast to table %s failed", campaign_id)

    transaction.on_commit(send)


def member_removed(*, campaign_id: int, user_id: int) -> None:
    _send_on_commit(campaign_id, {"type": "member.removed", "user_id": user_id})


def entry_created(entry) -> None:
    """Tell the table a feed entry exists; each connection renders it for its own viewer."""
    _send_on_commit(entry.campaign_id, {"type": "feed.entry", "seq": entry.seq, "entry_id": entry.pk})
