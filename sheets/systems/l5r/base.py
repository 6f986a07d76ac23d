"""What every part of the L5R sheet shares: labels, the builder's lists, the Ten Dice option, emphases,
wound readings and how a pool is written."""

from __future__ import annotations

from rules import l5r
from rules.dice import RulesError

from .models import L5RSheet, L5RSkill, L5RWeapon

ODD_DIE_OPTION = "l5r_odd_die_bonus"
TRAIT_LABELS = {trait: trait.capitalize() for trait in l5r.TRAITS}
RING_LABELS = {ring: ring.value.capitalize() for ring in l5r.Ring}
ELEMENTAL_RINGS = tuple(ring for ring in l5r.Ring if ring is not l5r.Ring.VOID)
WOUNDS_MAX = 999
SCHOOL_MAX_LENGTH = L5RSheet._meta.get_field("school").max_length
EMPHASIS_MAX_LENGTH = L5RSkill._meta.get_field("emphasis").max_length


def slug(name: str) -> str:
    return "_".join(name.lower().replace("-", " ").split())


# Weapons a character can carry from the engine's list; unarmed needs no row (everyone has fists).
WEAPON_CHOICES = {slug(w.name): w for w in l5r.WEAPONS if w is not l5r.UNARMED}
WEAPON_CHOICES.update({slug(b.name): b for b in l5r.BOWS})
ARROWS = {slug(a.name): a for a in l5r.ARROWS}
SKILL_FIELDS = {f"skill_{slug(skill.name)}": skill for skill in l5r.SKILLS}


def odd_die_bonus(campaign) -> bool:
    return bool((campaign.options or {}).get(ODD_DIE_OPTION))


def emphasis_count(text: str) -> int:
    """Emphases are written in one field, separated by commas ("Deceit, Poison" is two)."""
    return len(emphasis_names(text))


def emphasis_names(text: str) -> list[str]:
    """The emphases written in one field, in order ("Deceit, Poison" -> ["Deceit", "Poison"])."""
    return [part.strip() for part in (text or "").split(",") if part.strip()]


def emphasis_choices(character) -> list[tuple[str, str]]:
    """The roll option "an emphasis applies": (skill id:emphasis, "Skill: emphasis") for each one held."""
    return [
        (f"{skill.pk}:{name}", f"{skill.name}: {name}")
        for skill in character.l5r_skills.all()
        if skill.rank
        for name in emphasis_names(skill.emphasis)
    ]


def chosen_emphasis(options, skill) -> str:
    """The emphasis of ``skill`` the roll options say applies, or "" (another skill's, or none)."""
    ident, _, name = (options.get("emphasis") or "").partition(":")
    return name if ident == str(skill.pk) and name in emphasis_names(skill.emphasis) else ""


def earth(sheet: L5RSheet) -> int:
    return min(sheet.stamina, sheet.willpower)


def wound_state(sheet: L5RSheet) -> l5r.WoundLevel:
    """The wound rank the sheet's wounds fall in, by its Earth ring."""
    return l5r.wound_rank(sheet.wounds, earth(sheet))


def wound_text(level: l5r.WoundLevel) -> str:
    """ "Nicked +3", "Healthy", "Out": the rank and the TN penalty it adds."""
    return f"{level.name} +{level.tn_penalty}" if level.tn_penalty else level.name


def wound_note(level: l5r.WoundLevel) -> str:
    """What the rank still allows, where it takes something away (the Down and Out readings)."""
    if not l5r.can_roll(level):
        return "unconscious: no actions, no rolls"
    if not l5r.can_attack(level):
        return "no attacks or other Complex Actions"
    return ""


def trait_label(trait: str) -> str:
    return "Void" if trait == "void" else TRAIT_LABELS.get(trait, trait.capitalize())


def pool_text(pool: l5r.Pool, *, odd: bool) -> str:
    """The pool as written and, when the Ten Dice Rule folds it, as rolled: "12k4 -> 10k5"."""
    written = f"{pool.rolled}k{pool.kept}" + (f"{pool.bonus:+d}" if pool.bonus else "")
    try:
        rolled, kept, bonus = pool.effective(odd_die_bonus=odd)
    except RulesError:
        return written
    folded = f"{rolled}k{kept}" + (f"{bonus:+d}" if bonus else "")
    return written if folded == written else f"{written} → {folded}"


def melee(weapon: L5RWeapon) -> l5r.Weapon:
    return l5r.Weapon(weapon.name, weapon.rolled, weapon.kept)


def bow(weapon: L5RWeapon) -> l5r.Weapon:
    return l5r.Weapon(weapon.name, 0, 0, bow_strength=weapon.bow_strength)
