"""NPCs several test modules put in a fight, as the encounter's quick-NPC form cleans them."""

from sheets.registry import game_systems


def sample_npc(system: str) -> dict:
    """The system's typical foe (``CombatRules.sample_npc``), cleaned by its quick-NPC form: what a test
    that fights in every system puts against the party."""
    combat = next(config.combat for config in game_systems() if config.label == system)
    form = combat.npc_form_class(combat.sample_npc())
    if not form.is_valid():
        raise ValueError(f"{system}'s sample NPC is refused by its own form: {form.errors.as_text()}")
    return form.cleaned_data


# The bandit whose numbers the L5R encounter tests work through and quote (Armor TN 20, no Reduction):
# a worked example of those rules, not the system's sample foe.
L5R_BANDIT = {
    "reflexes": 2,
    "agility": 3,
    "strength": 3,
    "earth": 2,
    "void": 2,
    "insight_rank": 1,
    "attack_skill": 2,
    "weapon_rolled": 3,
    "weapon_kept": 2,
    "armor": 5,
}
