"""Tell the table that a sheet changed, so the GM's party panel refreshes without a reload."""

from campaigns import realtime


def sheet_changed(character) -> None:
    realtime.sheet_changed(campaign_id=character.campaign_id, character_id=character.pk)
