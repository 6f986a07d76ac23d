"""Demo characters: one per system per player, built through the same builders as the browser."""

from .models import Character
from .registry import system_for
from .services import character_create


def load_demo_characters(campaign, *, players) -> None:
    system = system_for(campaign)
    for player, data in zip(players, system.demo_form_data(), strict=False):
        if Character.objects.filter(campaign=campaign, owner=player).exists():
            continue
        form = system.builder_form(campaign=campaign, data=data, trusted=True)
        if not form.is_valid():
            raise ValueError(f"demo character {data.get('name')!r} is invalid: {form.errors.as_text()}")
        character_create(campaign=campaign, owner=player, cleaned_data=form.cleaned_data)
