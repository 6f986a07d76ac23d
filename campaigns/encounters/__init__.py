"""Encounters: the GM runs a fight in each system's own way, live for the whole table."""


def rules_for(campaign):
    """The combat rules of the campaign's system."""
    from .registry import COMBAT

    return COMBAT[campaign.system]
