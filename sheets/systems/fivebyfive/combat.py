"""Five by Five 2.5 fights: players try to steal initiative, then attack (to hit, the target's dodge,
damage with weapon DB, armor AV and trumps) or heal; HP, conditions and doubles tokens land on sheets.

Quick NPCs carry a few descriptors ("Brute 6, Sneaky 4"), HP, a weapon's DB, an armor's AV and a shield.

Readings taken (where the seed leaves room):

- Stealing initiative happens once, when the fight starts ("At the beginning of combat"); the order it
  gives holds for every round. Every player character able to act rolls; the GM's side never steals.
- For an exclusive action (attack, dodge, healing, steal initiative) a sheet rolls its best descriptor
  tied to that action, else untrained (0): the seed's exclusive actions are what such descriptors are
  for. A descriptor tied to one exclusive action never serves another ("A Descriptor cannot be defined
  that improves the ability of more than one Exclusive Action"): the forms leave it out and a posted
  one is refused. For attack, heal and dodge the GM may pick any descriptor not tied elsewhere; for
  stealing initiative the GM may switch, when starting, to every player's best such descriptor.
- Aspects (when the campaign plays them): each action names the aspect it is based on, and that
  aspect's rating shifts the roll. The forms default attack and dodge to Agility and healing to
  Cognition; the GM may name another (Brawn for a shove). Stealing initiative is based on Cognition
  (alertness, the book's own example of a steal-initiative descriptor). Quick NPCs are Average.
- A quick NPC's descriptors carry no exclusive tag (the GM typed only what matters in this fight), so
  its automatic choice is its best descriptor.
- One action a turn: an attack or a heal ("Next turn" passes). A round ends when the order wraps, and
  dodges come back then.
- A dodge is rolled only against a hit and is used up only when rolled. Only a target above 0 HP can
  dodge. Ticking "target dodges" with no dodge left goes ahead without one and says so.
- Doubles tokens: a character with a sheet keeps its token on the sheet; quick NPCs share the GM's one
  token, kept on the encounter. A token is spent only when the action's form says so (refused when
  none is held); doubles on any 5x5 check here (initiative, to hit, dodge, healing) earn one.
- At 0 HP or below (unconscious, dying, dead) a combatant takes no turns; healed above 0 it is back.
  Attacks may target any foe not dead; heals any wounded, living member of the healer's side (itself
  included). The dying clock (HP lost by the minute) is not run by the encounter; after a fight the
  sheet has it, with healing checks (``healing.py``).
- A newcomer to a running fight rolls no steal (that is "At the beginning of combat"): an NPC joins
  after the GM's side, a player's character after everyone (``join``).

The combatants' helpers and the action forms are in ``combatants.py``.
"""

from __future__ import annotations

from rules import fivebyfive
from rules.dice import Outcome
from sheets.combat import Action, CombatRules, EncounterError, RollResult, Side, for_players, is_npc

from .attacks import Attacks
from .combatants import (
    ATTACK,
    DEFAULT_ASPECT,
    HEALING,
    STEAL,
    STEAL_BEST,
    STEAL_EXCLUSIVE,
    Changes,
    FiveByFiveNpcForm,
    FiveByFiveStartForm,
    aspect_steps,
    attack_form_class,
    auto_use,
    chain_dice,
    condition_note,
    condition_of,
    dodges_of,
    heal_form_class,
    hp_of,
    pick_use,
    read_task,
    sheet_of,
    shifted,
    shown_condition,
    task_dice,
    tokens_said,
    usable_uses,
    uses_aspects,
)

# ----- the rules -----------------------------------------------------------------------------------


class FiveByFiveCombat(Attacks, CombatRules):
    key = "fivebyfive"
    npc_form_class = FiveByFiveNpcForm
    start_form_class = FiveByFiveStartForm

    def npc_stats(self, cleaned_data):
        return {
            "descriptors": cleaned_data["descriptors"],
            "hp": cleaned_data["hp"],
            "hp_max": cleaned_data["hp"],
            "db": cleaned_data["weapon_db"],
            "av": cleaned_data["armor_av"],
            "shield": bool(cleaned_data.get("shield")),
        }

    # ----- order ----------------------------------------------------------------------------------

    def start(self, encounter, combatants, roller):
        # The author of the sheet changes is the GM who started the fight.
        author = encounter.campaign.gm
        changes = Changes(encounter)
        reasons: dict[int, str] = {}
        lines, stole = [], []
        steal_with = encounter.state.get("start", {}).get("steal_with", STEAL_EXCLUSIVE)
        players = [c for c in combatants if c.side == Side.PLAYERS]
        for combatant in players:
            combatant.state = {}
            if combatant.character is None or self.is_out(combatant):
                continue
            if steal_with == STEAL_BEST:
                use = max(usable_uses(combatant, STEAL), key=lambda u: u.strength)
            else:
                use = auto_use(combatant, STEAL)
            held = changes.holds_token(combatant)
            aspect = DEFAULT_ASPECT[STEAL].value if uses_aspects(encounter) else ""
            steps = use.steps + aspect_steps(combatant, aspect)
            result = fivebyfive.roll_task(roller, use.value, steps=steps, holding_token=held)
            changes.set_token(combatant, result.token_held)
            if result.success:
                stole.append(str(combatant.pk))
                combatant.state["stole"] = True
            reasons[combatant.character.pk] = "Steal initiative"
            lines.append(
                RollResult(
                    label=f"{combatant.name} tries to steal initiative",
                    summary=f"{shifted(use, steps - use.steps)}: {read_task(result)}, "
                    + ("steals it" if result.success else "acts after the GM's side"),
                    dice=task_dice(result),
                    outcome=result.outcome,
                    total=result.faces[0] * result.faces[1] if len(result.faces) == 2 else None,
                    chance=fivebyfive.chance(result.target),
                    changes=tuple(tokens_said(combatant.name, spent=False, earned=result.token_earned)),
                    character=combatant.character,
                )
            )
        order = fivebyfive.turn_order(
            players=[str(c.pk) for c in players],
            gm_side=[str(c.pk) for c in combatants if c.side == Side.GM],
            stole=stole,
        ).flat()
        for combatant in combatants:
            combatant.position = order.index(str(combatant.pk))
            combatant.initiative = None
            if combatant.side == Side.GM:
                combatant.state = {}
        combatants.sort(key=lambda c: c.position)
        changes.save(author, reasons)
        lines.append(RollResult(label="Turn order", summary=", ".join(c.name for c in combatants)))
        return lines

    def new_round(self, encounter, combatants):
        for combatant in combatants:
            combatant.state = {**combatant.state, "dodges": 0}
        return []

    def join(self, encounter, combatant, combatants, roller):
        """A newcomer takes the place its side has in the order (l.348-351: those who stole initiative,
        the GM's side, the other players). Stealing is done "At the beginning of combat" (l.331), so a joining
        player's character does not roll for it and acts last; a joining NPC acts after the GM's side."""
        combatant.state = {"dodges": 0}
        others = [c for c in combatants if c is not combatant]
        if combatant.side == Side.GM:
            gm_places = [i for i, c in enumerate(others) if c.side == Side.GM]
            thieves = sum(1 for c in others if c.state.get("stole"))
            index = gm_places[-1] + 1 if gm_places else thieves
            where = "after the GM's side"
        else:
            index = len(others)
            where = "last: initiative was stolen at the start of the fight"
        self.place(encounter, combatants, combatant, index)
        return [
            RollResult(
                label=f"{combatant.name} joins",
                summary=f"{combatant.name} joins the fight, {where}. Order: "
                + ", ".join(c.name for c in combatants),
                character=combatant.character,
            )
        ]

    def sample_npc(self):
        # A bandit with a medium weapon and light clothes.
        return {"descriptors": "Brute 6, Sneaky 4", "hp": 12, "weapon_db": 3, "armor_av": -1, "shield": False}

    def begin_turn(self, encounter, actor, author):
        actor.state = {**actor.state, "acted": False}
        return []

    # ----- a turn ---------------------------------------------------------------------------------

    def _foes(self, actor, combatants):
        return tuple(c for c in combatants if c.side != actor.side and condition_of(c) != "dead")

    def _wounded_friends(self, actor, combatants):
        return tuple(
            c
            for c in combatants
            if c.side == actor.side and condition_of(c) != "dead" and hp_of(c)[0] < hp_of(c)[1]
        )

    def actions(self, encounter, actor, combatants):
        if actor.state.get("acted"):
            return []
        foes = self._foes(actor, combatants)
        holds_token = Changes(encounter).holds_token(actor)
        aspects = uses_aspects(encounter)
        return [
            Action(
                "attack",
                "Attack",
                needs_target=True,
                form_class=lambda: attack_form_class(actor, foes, holds_token=holds_token, aspects=aspects),
                targets=foes,
                help="To hit, then the target may dodge (once a round, twice with a shield or off-hand "
                "dagger), then 1d6 + DB + the target's AV. A player's character hit declares its own "
                "dodge, unless the GM resolves at once with the dodge inputs here.",
                # The shift is the GM's ruling and the dodge is the target's own choice.
                gm_fields=("shift", "dodge", "dodge_with", "dodge_token", "dodge_aspect"),
                defender_chooses=True,
                own_odds=True,  # to hit is the attacker's descriptor alone; the dodge comes after
            ),
            Action(
                "heal",
                "Heal",
                needs_target=True,
                form_class=lambda: heal_form_class(actor, holds_token=holds_token, aspects=aspects),
                targets=self._wounded_friends(actor, combatants),
                help="A healing check: success restores 1d6 HP (trumps add 5), failure harms 1-2 HP.",
                gm_fields=("shift",),
                own_odds=True,
            ),
        ]

    def act(self, encounter, actor, action, target, data, roller, author):
        if action == "attack":
            lines, _ = self._attack(encounter, actor, target, data, roller, author)
        else:
            lines = self._heal(encounter, actor, target, data, roller, author)
        actor.state = {**actor.state, "acted": True}
        return lines

    def chance(self, encounter, actor, action, target, data):
        """To hit (an attack, before the target's dodge) or the healing check, as ``act`` rolls it."""
        if action not in ("attack", "heal"):
            return None
        exclusive, token_on = (ATTACK, "hit") if action == "attack" else (HEALING, "check")
        use = pick_use(actor, data.get("descriptor") or "", exclusive)
        shift = (data.get("shift") or 0) + aspect_steps(actor, data.get("aspect") or "")
        target_number = fivebyfive.shift(use.value, use.steps + shift)
        return fivebyfive.chance(target_number, doubles_token=data.get("spend") == token_on)

    def _heal(self, encounter, actor, target, data, roller, author):
        options = data
        use = pick_use(actor, options["descriptor"], HEALING)
        shift = (options.get("shift") or 0) + aspect_steps(actor, options.get("aspect") or "")
        changes = Changes(encounter)
        healer_token = changes.holds_token(actor)
        if options["spend"] and not healer_token:
            raise EncounterError(f"{actor.name} holds no doubles token to spend.")
        result = fivebyfive.roll_healing(
            roller,
            use.value,
            steps=use.steps + shift,
            doubles_token=options["spend"] == "check",
            heal_token=options["spend"] == "die",
            holding_token=healer_token,
        )
        check = result.check
        changes.set_token(actor, result.token_held)
        before, most = hp_of(target)
        if result.healed:
            after = fivebyfive.apply_healing(before, result.amount, max_hp=most)
        else:
            after = fivebyfive.apply_damage(before, result.amount)
        changes.set_hp(target, after)
        reasons = {}
        if actor.character is not None:
            reasons[actor.character.pk] = f"Healed {target.name}"
        if target.character is not None:
            reasons[target.character.pk] = (
                f"Healed by {actor.name}" if result.healed else f"Harmed by {actor.name}'s failed heal"
            )
        changes.save(author, reasons)
        chain = f"heals {after - before} HP" if result.healed else f"harms: {result.amount} HP lost"
        trumps = len(result.faces) - 1
        lines = [
            RollResult(
                label=f"{actor.name} heals {target.name}",
                summary=f"{shifted(use, shift)}: {read_task(check)}, "
                + ("success" if check.success else "failure"),
                dice=task_dice(check),
                outcome=check.outcome,
                total=check.faces[0] * check.faces[1] if len(check.faces) == 2 else None,
                chance=fivebyfive.chance(check.target, doubles_token=check.token_spent),
                changes=tuple(tokens_said(actor.name, spent=check.token_spent, earned=check.token_earned)),
                character=actor.character,
            ),
            RollResult(
                label=f"{actor.name} {'heals' if result.healed else 'harms'} {target.name}",
                summary=f"{'Healing' if result.healed else 'Harming'} die {', '.join(map(str, result.faces))}"
                + (f" ({trumps} trump{'s' if trumps > 1 else ''})" if trumps else "")
                + f": {chain}",
                dice=chain_dice(result.faces, token=result.heal_token_spent),
                outcome=Outcome.NONE,  # the check above succeeded or failed; this chain only counts HP
                outcome_label="healing" if result.healed else "harm",
                total=result.amount,
                changes=tuple(
                    tokens_said(actor.name, spent=result.heal_token_spent, earned=False)
                    + condition_note(target, before, after)
                ),
                character=target.character,
            ),
        ]
        if is_npc(actor):  # the GM's side heals its own: its descriptor and HP are the GM's
            check_line, chain_line = lines
            lines = [
                for_players(check_line, "", check_line.changes),
                for_players(
                    chain_line,
                    "heals" if result.healed else "harms",
                    tokens_said(actor.name, spent=result.heal_token_spent, earned=False)
                    + shown_condition(target, before, after),
                ),
            ]
        return lines

    # ----- display --------------------------------------------------------------------------------

    def summary(self, combatant, *, for_gm):
        hp, most = hp_of(combatant)
        state = fivebyfive.condition(hp)
        used, per_round = dodges_of(combatant)
        flags = []
        if combatant.state.get("stole"):
            flags.append("stole initiative")
        if not for_gm:
            return state if state != "healthy" else ("hurt" if hp < most else "")
        if combatant.character is None:
            stats = combatant.stats
            descriptors = ", ".join(f"{name} {value}" for name, value in stats["descriptors"].items())
            shield = " · shield" if stats.get("shield") else ""
            return (
                f"HP {hp}/{most} · {state} · {descriptors} · DB {stats['db']} · AV {stats['av']}{shield} · "
                f"dodges {per_round - used}/{per_round} left"
            )
        token = "token" if sheet_of(combatant).doubles_token else "no token"
        return " · ".join(
            [f"HP {hp}/{most}", state, token, f"dodges {per_round - used}/{per_round} left", *flags]
        )

    def is_out(self, combatant):
        return condition_of(combatant) != "healthy"


combat = FiveByFiveCombat()
