"""A combatant's numbers in an L5R fight, from its sheet or a quick NPC's stats, and what lands on them:
the Armor TN with its Stance, Guard and Prone, Void points, wounds through Reduction."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import prefetch_related_objects

from rules import l5r
from sheets.contract import Die
from sheets.services import character_change

from ..base import WOUNDS_MAX, wound_text

OUT_RANKS = (l5r.OUT, l5r.DEAD)


@dataclass(frozen=True)
class Fighter:
    """The numbers a fight needs, from a sheet or a quick NPC's stats."""

    reflexes: int
    agility: int
    strength: int
    earth: int
    void: int
    void_spent: int
    school_rank: int  # the Insight Rank of 4th edition (a quick NPC's own)
    wounds: int
    armor: int  # the armor's bonus to the Armor TN
    reduction: int = 0  # the armor's Reduction, off every damage roll that hits
    air: int = 2
    defense: int = 0  # Defense skill rank

    @property
    def wound_level(self) -> l5r.WoundLevel:
        return l5r.wound_rank(self.wounds, self.earth)

    @property
    def penalty(self) -> int:
        return l5r.wound_penalty(self.wounds, self.earth)

    @property
    def void_left(self) -> int:
        return max(0, self.void - self.void_spent)


def skill_rank(character, skill: l5r.Skill) -> int:
    # Read once per character object: a turn asks for them again and again (every fighter's Defense, each
    # form's attack skill), and nothing in a fight changes a skill's rank.
    prefetch_related_objects([character], "l5r_skills")
    row = next((r for r in character.l5r_skills.all() if r.name.lower() == skill.name.lower()), None)
    return row.rank if row is not None else 0


def fighter(combatant) -> Fighter:
    if combatant.character is None:
        stats = combatant.stats
        return Fighter(
            stats["reflexes"],
            stats["agility"],
            stats["strength"],
            stats["earth"],
            stats["void"],
            stats.get("void_spent", 0),
            stats["insight_rank"],
            stats.get("wounds", 0),
            stats.get("armor", 0),
            stats.get("reduction", 0),
            # Reading: a quick NPC has no Awareness, so its Air Ring is its Reflexes.
            stats["reflexes"],
            stats.get("defense", 0),
        )
    sheet = combatant.character.l5r
    return Fighter(
        sheet.reflexes,
        sheet.agility,
        sheet.strength,
        min(sheet.stamina, sheet.willpower),
        sheet.void,
        sheet.void_spent,
        sheet.school_rank,
        sheet.wounds,
        sheet.armor,
        sheet.reduction,
        min(sheet.reflexes, sheet.awareness),
        skill_rank(combatant.character, l5r.skill_info("Defense")),
    )


def stance_of(combatant) -> l5r.Stance:
    return l5r.Stance(combatant.state.get("stance", l5r.Stance.ATTACK.value))


def guards_of(target, everyone) -> list:
    """Who guards ``target`` now (4th edition, Guard: until the guard's next Turn)."""
    return [c for c in everyone if c.pk != target.pk and c.state.get("guarding") == target.pk and not c.out]


def armor_tn(target, everyone, *, melee: bool = True) -> tuple[int, str]:
    """The TN to hit ``target`` and how it is made: 5 x Reflexes + 5 + armor, its Stance (Full Attack -10,
    Defense + Air + Defense rank, Full Defense + half its roll), a Guard on it (+10) or by it (-5), and
    Prone (-10 against melee). Never below 0."""
    numbers = fighter(target)
    base = l5r.armor_tn(numbers.reflexes, armor=numbers.armor)
    stance = stance_of(target)
    parts = []
    bonus = l5r.stance_armor_bonus(
        stance, air=numbers.air, defense=numbers.defense, full_defense=target.state.get("full_defense", 0)
    )
    if bonus:
        parts.append((stance.label, bonus))
    if guards_of(target, everyone):
        parts.append(("guarded", l5r.GUARD_BONUS))
    if target.state.get("guarding"):
        parts.append(("guarding", -l5r.GUARD_COST))
    if target.state.get("prone") and melee:
        parts.append(("prone", l5r.PRONE_ARMOR))
    total = max(0, base + sum(amount for _, amount in parts))
    words = f"Armor TN {base}" + "".join(f" {amount:+d} {why}" for why, amount in parts)
    return total, (f"{words} = {total}" if parts else words)


def dice(result: l5r.RollResult) -> tuple[Die, ...]:
    return tuple(
        Die(total, kept=i in result.kept, exploded=len(chain) > 1, sides=l5r.SIDES)
        for i, (chain, total) in enumerate(zip(result.chains, result.die_totals, strict=True))
    )


def exploded(result: l5r.RollResult) -> str:
    chains = [" + ".join(str(face) for face in chain) for chain in result.chains if len(chain) > 1]
    return " · tens exploded: " + ", ".join(chains) if chains else ""


def spend_void(combatant, author, reason: str) -> str:
    """Spend one of ``combatant``'s Void points: from the sheet (through its history) or its numbers."""
    if combatant.character is None:
        spent = combatant.stats.get("void_spent", 0) + 1
        combatant.stats = {**combatant.stats, "void_spent": spent}
        void = combatant.stats["void"]
    else:
        sheet = combatant.character.l5r
        with character_change(character=combatant.character, author=author, reason=reason):
            sheet.void_spent += 1
            sheet.save(update_fields=["void_spent"])
        spent, void = sheet.void_spent, sheet.void
    return f"{combatant.name}: Void point spent, {void - spent} of {void} left"


def wound(target, amount: int, author, *, source: str) -> list[str]:
    """Damage lands as wounds: on the sheet through its history, or on a quick NPC's numbers."""
    before = fighter(target)
    if target.character is None:
        after = before.wounds + amount
        target.stats = {**target.stats, "wounds": after}
    elif amount:
        sheet = target.character.l5r
        after = min(before.wounds + amount, WOUNDS_MAX)
        reason = f"{amount} wounds from {source}"
        with character_change(character=target.character, author=author, reason=reason):
            sheet.wounds = after
            sheet.save(update_fields=["wounds"])
    else:
        after = before.wounds
    level = l5r.wound_rank(after, before.earth)
    changes = [f"{target.name}: wounds {before.wounds} -> {after} ({wound_text(level)})"]
    target.out = level.name in OUT_RANKS
    if level.name == l5r.DEAD:
        changes.append(f"{target.name} is dead")
    elif level.name == l5r.OUT:
        changes.append(f"{target.name} is out of the fight")
    return changes


def center_applies(encounter, actor) -> bool:
    """Whether a Center Stance taken last round still waits to help one roll of this Turn."""
    return actor.state.get("center_round") == encounter.round


def centered(encounter, actor, pool: l5r.Pool) -> tuple[l5r.Pool, str]:
    """``pool`` with a waiting Center Stance's +1k1 and +Void (the first roll of the Turn takes it)."""
    if not center_applies(encounter, actor):
        return pool, ""
    void = fighter(actor).void
    return l5r.center_pool(pool, void), f", Center +1k1 +{void}"


def use_center(encounter, actor) -> None:
    if center_applies(encounter, actor):
        actor.state = {k: v for k, v in actor.state.items() if k != "center_round"}


def spend(actor, kind: l5r.ActionKind) -> None:
    """Count an Action of ``kind`` against the Turn's one Complex or two Simple Actions."""
    actor.state = {**actor.state, "spent": actor.state.get("spent", 0) + l5r.ACTION_COST[kind]}


def refusal(actor, kind: l5r.ActionKind, *, attack: bool = False) -> str:
    """Why ``actor`` may not take an Action of ``kind`` now ("" when it may): rules.l5r.action_refusal."""
    numbers = fighter(actor)
    return l5r.action_refusal(
        kind,
        spent=actor.state.get("spent", 0),
        stance=stance_of(actor),
        level=numbers.wound_level,
        attack=attack,
        void_left=numbers.void_left,
    )
