"""Triad characters in and out: an import checked by the builder (tier or the GM's out-of-tier option),
the export, and the seed's sample characters for the one-click builds and the demo."""

from __future__ import annotations

from typing import Any

from rules import triad
from sheets.contract import SheetSystem

from .base import OUT_OF_TIER_OPTION


class TriadTransfer(SheetSystem):
    """Export, import and the seed's sample characters."""

    def import_builder_form(self, *, campaign, data, play):
        form = self.builder_form(campaign=campaign, data=data)
        # A character built outside the tiers has none in its file: say why that matters here.
        form.fields["tier"].error_messages["required"] = (
            "it matches no tier, and this campaign builds characters within the tiers (its GM may allow "
            "characters outside them)"
        )
        return form

    def sample_characters(self, campaign) -> dict[str, triad.SampleCharacter]:
        """The seed's samples this campaign's builder accepts: one outside every tier only where the GM
        allows such characters."""
        allowed = bool((campaign.options or {}).get(OUT_OF_TIER_OPTION))
        return {key: sample for key, sample in triad.SAMPLE_CHARACTERS.items() if sample.tier or allowed}

    def sample_form_data(self, key: str) -> dict[str, Any]:
        """Builder data for one of the seed's sample characters (created with one click)."""
        sample = triad.SAMPLE_CHARACTERS[key]
        return {
            "name": sample.name,
            "tier": sample.tier or "",
            "body": sample.body,
            "mind": sample.mind,
            "spirit": sample.spirit,
            "traits": list(sample.traits),
            "powers": "\n".join(sample.powers),
            "weapon": "light",
            "armor": "",
            "notes": sample.background,
        }

    def demo_form_data(self):
        return [self.sample_form_data("van_helsing"), self.sample_form_data("zheng_yi_sao")]

    def export_data(self, character):
        sheet = character.triad
        traits = list(character.triad_traits.all())
        return {
            "tier": sheet.tier,
            "body": sheet.body_max,
            "mind": sheet.mind_max,
            "spirit": sheet.spirit_max,
            "traits": [t.name for t in traits if t.kind == "trait" and not t.custom],
            "custom_traits": "\n".join(
                f"{t.name}{' (Adv.)' if t.adv else ''}" for t in traits if t.kind == "trait" and t.custom
            ),
            "powers": "\n".join(t.name for t in traits if t.kind == "power"),
            "armor": sheet.armor,
            "weapon": sheet.weapon,
        }
