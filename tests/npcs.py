"""NPC stats several test modules put in a fight, written once (the encounter's quick-NPC form, cleaned)."""

# An L5R bandit (Reflexes 2, Agility 3, Strength 3, Earth 2, Void 2, a 3k2 weapon, armor 5).
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
