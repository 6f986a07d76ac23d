"""The single-process channel layer (campaigns/layers.py): what channels' in-memory layer delivers,
with its sweep for expired messages paced and a group send made in place."""

from types import SimpleNamespace

import pytest

from campaigns import layers
from campaigns.layers import TableChannelLayer

pytestmark = pytest.mark.asyncio


async def test_a_group_send_reaches_every_member_in_order_and_no_one_else():
    layer = TableChannelLayer()
    members = [await layer.new_channel() for _ in range(3)]
    outsider = await layer.new_channel()
    for channel in members:
        await layer.group_add("table-1", channel)
    await layer.group_add("table-2", outsider)
    for seq in (1, 2):
        await layer.group_send("table-1", {"type": "feed.entry", "seq": seq})
    for channel in members:
        assert [(await layer.receive(channel))["seq"] for _ in range(2)] == [1, 2]
    assert outsider not in layer.channels  # nothing was queued for it


async def test_each_member_gets_its_own_copy():
    layer = TableChannelLayer()
    first, second = await layer.new_channel(), await layer.new_channel()
    for channel in (first, second):
        await layer.group_add("table-1", channel)
    await layer.group_send("table-1", {"type": "feed.entry", "frames": {"full": "x"}})
    (await layer.receive(first))["frames"]["full"] = "changed"
    assert (await layer.receive(second))["frames"] == {"full": "x"}


async def test_a_full_member_loses_its_copy_and_the_others_still_get_theirs():
    layer = TableChannelLayer(capacity=1)
    stuck, live = await layer.new_channel(), await layer.new_channel()
    for channel in (stuck, live):
        await layer.group_add("table-1", channel)
    await layer.group_send("table-1", {"type": "feed.entry", "seq": 1})
    assert (await layer.receive(live))["seq"] == 1
    await layer.group_send("table-1", {"type": "feed.entry", "seq": 2})  # stuck's queue is full
    assert (await layer.receive(live))["seq"] == 2
    assert (await layer.receive(stuck))["seq"] == 1 and stuck not in layer.channels


async def test_the_sweep_still_drops_expired_messages_and_their_members(monkeypatch):
    clock = [100.0]  # the layer's clock for its pacing, moved by hand
    monkeypatch.setattr(layers, "time", SimpleNamespace(monotonic=lambda: clock[0]))
    layer = TableChannelLayer(expiry=-1)  # every message is expired as soon as it is queued
    gone = await layer.new_channel()
    await layer.group_add("table-1", gone)
    await layer.group_send("table-1", {"type": "feed.entry", "seq": 1})  # sweeps first, then queues
    clock[0] += 0.5
    await layer.group_send("table-1", {"type": "feed.entry", "seq": 2})
    assert gone in layer.groups["table-1"]  # half a second after a sweep: no sweep yet
    clock[0] += 0.6
    await layer.group_send("table-1", {"type": "feed.entry", "seq": 3})
    assert "table-1" not in layer.groups or gone not in layer.groups["table-1"]
