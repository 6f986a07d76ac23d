"""What the L5R sheet offers under the result of a roll (sheets/systems/l5r/after_roll.py)."""

from django import template

from ..after_roll import offer

register = template.Library()


@register.simple_tag
def l5r_after_roll(character, entry):
    """The roll's dice to choose from and its second attempt, or None when the roll offers neither."""
    return offer(character, entry)
