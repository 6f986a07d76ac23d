"""Triad fights: initiative by d20 or best ability (NPCs Difficulty + 5), two actions a turn,
attacks as task rolls against the foe's Difficulty, damage tiers, armor, stun, dying at 0.

Player characters roll everything: on their own turn to attack, and on an NPC's turn to hold off its
attack (a defence roll against the NPC's Difficulty, with the ability its kind of attack hurts). Quick
NPCs have one Difficulty that damage wears down; at 0 they are out. Traits that change a fight
(an (Adv.) trait picked for the roll, Deadly, Danger Sense, Hard To ..., Relentless, Berserker Rage)
are played here; what must outlast the fight (death, a spent Hard To ..., a stun, Rage's advantage)
is kept on the sheet.
"""

from __future__ import annotations

from django import forms

from campaigns.forms import WholeNumberField
from rules import triad as rules
from sheets.combat import Action, CombatRules, Defence, EncounterError, RollResult
from sheets.contract import Die
from sheets.services import character_change

from .models import TriadTrait

ABILITY_CHOICES = [(a, a.title()) for a in rules.ABILITIES]
WEAPON_CHOICES = [("", "None")] + [(k, f"{t.name} ({t.points})") for k, t in rules.WEAPONS.items()]
ARMOR_CHOICES = [(k, f"{t.name} ({t.points})") for k, t in rules.ARMOR.items()]
#: What a kind of attack hurts: Body for physical, Mind for mental, Spirit for emotional or psychic.
KIND_CHOICES = [
    (rules.BODY, "Physical (hurts Body)"),
    (rules.MIND, "Mental (hurts Mind)"),
    (rules.SPIRIT, "Emotional or psychic (hurts Spirit)"),
]
KIND_LABELS = {rules.BODY: "physical", rules.MIND: "mental", rules.SPIRIT: "emotional"}
#: Actions that do not use up one of the turn's two.
FREE_ACTIONS = ("rage",)


class TriadNpcForm(forms.Form):
    difficulty = WholeNumberField(
        min_value=1,
        max_value=30,
        initial=10,
        help_text="One number for everything it does; damage wears it down.",
    )
    weapon = forms.ChoiceField(choices=WEAPON_CHOICES, required=False, initial="light")
    armor = forms.ChoiceField(choices=ARMOR_CHOICES, initial="none")
    # Not required: a form from before the choice existed (or a quick "Add") means blows to the body.
    kind = forms.ChoiceField(
        choices=KIND_CHOICES,
        initial=rules.BODY,
        required=False,
        label="Its attacks",
        help_text="Which score its hits take points from; armor only stops physical harm.",
    )


class TriadAttackForm(forms.Form):
    ability = forms.ChoiceField(choices=ABILITY_CHOICES, initial=rules.BODY)
    trait = forms.ChoiceField(
        choices=[("", "None")],
        required=False,
        label="A related (Adv.) trait",
        help_text="Advantage on the roll, and a tie with the Difficulty counts as a full success.",
    )
    advantages = WholeNumberField(min_value=0, max_value=9, initial=0, required=False)
    disadvantages = WholeNumberField(min_value=0, max_value=9, initial=0, required=False)
    extra_effort = forms.BooleanField(required=False, label="Extra effort (costs 1 point, gives advantage)")


class TriadOpposedForm(forms.Form):
    """An opposed roll between two characters: the GM picks what each side rolls."""

    ability = forms.ChoiceField(choices=ABILITY_CHOICES, initial=rules.BODY, label="Actor rolls")
    trait = forms.ChoiceField(choices=[("", "None")], required=False, label="The actor's (Adv.) trait")
    their_ability = forms.ChoiceField(choices=ABILITY_CHOICES, initial=rules.BODY, label="Opponent rolls")
    their_trait = forms.ChoiceField(
        choices=[("", "None")], required=False, label="The opponent's (Adv.) trait"
    )
    harm = forms.BooleanField(
        required=False,
        label="Harm at stake (the loser takes the winner's weapon damage)",
    )


class TriadTeamForm(forms.Form):
    """A team task led by the actor: everyone rolls, the best single number counts."""

    ability = forms.ChoiceField(choices=ABILITY_CHOICES, initial=rules.BODY)
    difficulty = WholeNumberField(min_value=0, max_value=40, initial=10)
    helpers = forms.MultipleChoiceField(
        choices=[], label="Working with", widget=forms.SelectMultiple(attrs={"size": 3})
    )
    adv_trait = forms.BooleanField(required=False, label="An (Adv.) trait applies to the team")


class TriadDefendForm(forms.Form):
    kind = forms.ChoiceField(
        choices=[("", "Its usual kind")] + KIND_CHOICES,
        required=False,
        label="This attack is",
    )
    trait = forms.ChoiceField(
        choices=[("", "None")],
        required=False,
        label="The defender's related (Adv.) trait",
        help_text="Advantage on the defence, and a tie counts as holding it off.",
    )
    disadvantages = WholeNumberField(min_value=0, max_value=9, initial=0, required=False)
    extra_effort = forms.BooleanField(
        required=False, label="The defender's extra effort (1 point of the score hit, for advantage)"
    )


class TriadDefenceForm(forms.Form):
    """What the defending player chooses on an NPC's attack: a related (Adv.) trait, extra effort."""

    trait = forms.ChoiceField(
        choices=[("", "None")],
        required=False,
        label="A related (Adv.) trait",
        help_text="Advantage on the defence, and a tie counts as holding it off.",
    )
    extra_effort = forms.BooleanField(required=False, label="Extra effort (costs 1 point, gives advantage)")


class TriadRageForm(forms.Form):
    source = forms.ChoiceField(
        choices=[(rules.MIND, "Mind"), (rules.SPIRIT, "Spirit")],
        initial=rules.SPIRIT,
        label="Take the point from",
    )


def _with_traits(form_class: type[forms.Form], choices: list[tuple[str, str]]) -> type[forms.Form]:
    """``form_class`` whose trait list is these (Adv.) traits: only they can be picked."""

    class Form(form_class):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.fields["trait"].choices = [("", "None"), *choices]

    Form.__name__ = form_class.__name__
    return Form


def _choices_form(form_class: type[forms.Form], **choices: list[tuple[str, str]]) -> type[forms.Form]:
    """``form_class`` with these fields' choices filled in ("" = None first for the trait lists)."""

    class Form(form_class):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            for name, listed in choices.items():
                blank = [("", "None")] if name.endswith("trait") else []
                self.fields[name].choices = [*blank, *listed]

    Form.__name__ = form_class.__name__
    return Form


def _able(combatant) -> bool:
    """A character combatant who can still take actions (not dying, not dead)."""
    sheet = combatant.character.triad
    return not sheet.dead and not sheet.dying


def _percent(chance) -> str:
    return f"{float(chance) * 100:.1f}%"


def _adv_traits(character) -> list[TriadTrait]:
    return [t for t in character.triad_traits.all() if t.kind == TriadTrait.Kind.TRAIT and t.adv]


def _trait_names(character) -> frozenset[str]:
    return frozenset(t.name for t in character.triad_traits.all() if t.kind == TriadTrait.Kind.TRAIT)


def _picked_trait(character, picked: str) -> TriadTrait | None:
    if not picked:
        return None
    trait = next((t for t in _adv_traits(character) if str(t.pk) == picked), None)
    if trait is None:
        raise EncounterError(f"That (Adv.) trait is not {character.name}'s.")
    return trait


def _dice(result) -> tuple[Die, ...]:
    kept_index = result.faces.index(result.kept)
    return tuple(Die(face, kept=i == kept_index, sides=rules.DIE) for i, face in enumerate(result.faces))


def _side_dice(side: rules.Side, faces: tuple[int, ...]) -> tuple[Die, ...]:
    """One team member's dice, the one their edge keeps marked."""
    kept = max(faces) if side.edge > 0 else min(faces) if side.edge < 0 else faces[0]
    index = faces.index(kept)
    return tuple(Die(face, kept=i == index, sides=rules.DIE) for i, face in enumerate(faces))


def _label(ability: str) -> str:
    return ability.title()


class TriadCombat(CombatRules):
    key = "triad"
    npc_form_class = TriadNpcForm

    def npc_stats(self, cleaned_data):
        return {
            "difficulty": cleaned_data["difficulty"],
            "max_difficulty": cleaned_data["difficulty"],
            "weapon": cleaned_data.get("weapon") or "",
            "armor": cleaned_data.get("armor") or "none",
            "kind": cleaned_data.get("kind") or rules.BODY,
        }

    # ----- order ----------------------------------------------------------------------------------

    def start(self, encounter, combatants, roller):
        lines, entries = [], []
        for combatant in combatants:
            if combatant.character is None:
                entry = rules.npc_initiative(str(combatant.pk), combatant.stats["difficulty"])
                lines.append(
                    RollResult(
                        label=f"{combatant.name} initiative",
                        summary=f"Difficulty {combatant.stats['difficulty']} + 5 = {entry.value}",
                        total=entry.value,
                        secret=True,
                    )
                )
            else:
                sheet = combatant.character.triad
                # Danger Sense: advantage on initiative. A stun waits for the character's next turn.
                sensed = "Danger Sense" in _trait_names(combatant.character)
                entry = rules.roll_initiative(
                    roller,
                    str(combatant.pk),
                    body=sheet.body,
                    mind=sheet.mind,
                    spirit=sheet.spirit,
                    edge=int(sensed),
                )
                best = max(sheet.body, sheet.mind, sheet.spirit)
                lines.append(
                    RollResult(
                        label=f"{combatant.name} initiative",
                        summary=f"d20 {entry.die} or best ability {best}: {entry.value}"
                        + (" (Danger Sense: advantage)" if sensed else ""),
                        dice=tuple(Die(f, kept=f == entry.die, sides=rules.DIE) for f in entry.faces),
                        total=entry.value,
                        character=combatant.character,
                    )
                )
            combatant.initiative = entry.value
            entries.append(entry)
        order = [e.name for e in rules.initiative_order(entries)]
        for combatant in combatants:
            combatant.position = order.index(str(combatant.pk))
            combatant.state = {}
        combatants.sort(key=lambda c: c.position)
        return lines

    def new_round(self, encounter, combatants):
        return []  # what lasts in Triad lasts until a character's next turn, not a round

    def begin_turn(self, encounter, actor, author):
        # Evading lasts until the evader's next turn. A stun taken before this turn spoils this one:
        # a player character's waits on the sheet, an NPC's on its combatant.
        if actor.character is not None:
            stunned = actor.character.triad.stunned
        else:
            stunned = bool(actor.state.get("stunned"))
        actor.state = {"actions": 0, "stunned_this_turn": stunned}
        return []

    def end_turn(self, encounter, actor, author):
        if actor is None or not actor.state.get("stunned_this_turn"):
            return []
        # A stun taken during this very turn is for the next one: it stays.
        restunned = actor.state.get("stunned_anew", False)
        actor.state = {k: v for k, v in actor.state.items() if k not in ("stunned_this_turn", "stunned_anew")}
        if restunned:
            return []
        if actor.character is not None:
            sheet = actor.character.triad
            with character_change(character=actor.character, author=author, reason="Stun wears off"):
                sheet.stunned = False
                sheet.save(update_fields=["stunned"])
        return [
            RollResult(
                label=f"{actor.name} shakes off the stun",
                summary="No longer stunned.",
                character=actor.character,
                secret=actor.character is None,
            )
        ]

    # ----- a turn ---------------------------------------------------------------------------------

    def actions(self, encounter, actor, combatants):
        foes = tuple(c for c in combatants if c.side != actor.side and not self.is_out(c))
        if actor.character is None:
            if actor.state.get("actions", 0) >= rules.ACTIONS_PER_TURN:
                return []
            targets = tuple(f for f in foes if f.character is not None)
            choices = [(str(t.pk), f"{f.name}: {t.name}") for f in targets for t in _adv_traits(f.character)]
            return [
                Action(
                    "attack",
                    "Attack",
                    needs_target=True,
                    form_class=_with_traits(TriadDefendForm, choices),
                    targets=targets,
                    help="The player character rolls to hold it off, against its Difficulty, with the "
                    "score its kind of attack hurts. A dying character cannot: the hit lands. The "
                    "defender's player picks their (Adv.) trait and extra effort, unless the GM resolves "
                    "at once with the inputs here.",
                    defender_chooses=True,
                ),
                Action("move", "Move"),
            ]
        characters = [c for c in combatants if c.character is not None]
        return self._pc_actions(actor, foes, characters)

    def _together_actions(self, actor, characters) -> list[Action]:
        """Tasks with other characters: an opposed roll against one, a team task with some."""
        others = [c for c in characters if c.pk != actor.pk and _able(c)]
        if not others:
            return []
        own = [(str(t.pk), t.name) for t in _adv_traits(actor.character)]
        theirs = [(str(t.pk), f"{c.name}: {t.name}") for c in others for t in _adv_traits(c.character)]
        return [
            Action(
                "opposed",
                "Opposed roll",
                needs_target=True,
                targets=tuple(others),
                form_class=_choices_form(TriadOpposedForm, trait=own, their_trait=theirs),
                gm_fields=("their_ability", "their_trait", "harm"),  # the other side is not the actor's
                help="Both roll; the higher total wins, 5 or more ahead is a critical (double damage "
                "if harm was at stake). A tie is mixed for both unless one side alone has a related "
                "(Adv.) trait. The odds are in the line it writes.",
            ),
            Action(
                "team",
                "Team task",
                form_class=_choices_form(TriadTeamForm, helpers=[(str(c.pk), c.name) for c in others]),
                gm_fields=("difficulty",),  # how hard the task is is the GM's call
                help="Everyone named rolls; the best single number counts against the Difficulty, "
                "but a 1 from anyone fumbles the whole task.",
            ),
        ]

    def _pc_actions(self, actor, foes, characters=()):
        character = actor.character
        sheet = character.triad
        traits = _trait_names(character)
        used = actor.state.get("actions", 0)
        if sheet.dead:
            return []
        if sheet.dying:
            # A dying character takes no actions; it may only crawl, once a turn.
            if actor.state.get("crawled"):
                return []
            return [
                Action("crawl", "Crawl", help=f"Dying: crawl up to {rules.CRAWL_FEET} feet, nothing else.")
            ]
        attack_form = _with_traits(TriadAttackForm, [(str(t.pk), t.name) for t in _adv_traits(character)])
        offered = []
        if used < rules.ACTIONS_PER_TURN:
            fast = next((t for t in ("Fast (Extreme)", "Fast") if t in traits), None)
            offered += [
                Action(
                    "attack",
                    "Relentless attack" if actor.state.get("relentless") else "Attack",
                    needs_target=True,
                    form_class=attack_form,
                    targets=foes,
                    help="A task roll against the foe's Difficulty; a miss lets it hit back."
                    + (" Relentless: this one is free." if actor.state.get("relentless") else ""),
                    gm_fields=("advantages", "disadvantages"),  # the GM rules what the scene gives
                ),
                Action("evade", "Evade", help="Advantage on defence rolls until this character's next turn."),
                Action("move", "Move", help=f"Up to {rules.move_feet(trait=fast)} feet."),
            ]
            offered += self._together_actions(actor, characters)
        elif actor.state.get("relentless") and foes:
            offered.append(
                Action(
                    "attack",
                    "Relentless attack",
                    needs_target=True,
                    form_class=attack_form,
                    targets=foes,
                    help="Relentless: the last attack dropped its target, so attack another at once.",
                    gm_fields=("advantages", "disadvantages"),
                )
            )
        if (
            "Berserker Rage" in traits
            and not actor.state.get("raged")
            and sheet.body < sheet.body_max
            and (sheet.mind or sheet.spirit)
        ):
            offered.append(
                Action(
                    "rage",
                    "Berserker Rage",
                    form_class=TriadRageForm,
                    help="Once a turn, free: 1 point from Mind or Spirit into Body, and advantage on the "
                    "next Body task.",
                )
            )
        return offered

    @staticmethod
    def _spend_action(actor, action) -> None:
        """One of the turn's two actions used (free ones are not)."""
        state = dict(actor.state)
        free = action in FREE_ACTIONS or (action == "attack" and state.get("relentless"))
        if action not in FREE_ACTIONS:
            state.pop("relentless", None)  # Relentless's extra attack comes at once or not at all
        if not free:
            state["actions"] = state.get("actions", 0) + 1
        actor.state = state

    def act(self, encounter, actor, action, target, data, roller, author):
        self._spend_action(actor, action)
        if action == "move":
            return [
                RollResult(
                    label=f"{actor.name} moves",
                    summary=f"{actor.name} moves.",
                    secret=actor.character is None,
                )
            ]
        if action == "crawl":
            actor.state["crawled"] = True
            return [
                RollResult(
                    label=f"{actor.name} crawls",
                    summary=f"Dying, {actor.name} crawls {rules.CRAWL_FEET} feet.",
                )
            ]
        if action == "evade":
            actor.state["evading"] = True
            return [
                RollResult(label=f"{actor.name} evades", summary="Advantage on defence until the next turn.")
            ]
        if action == "rage":
            return self._rage(actor, data["source"], author)
        if action == "opposed":
            return self._opposed(actor, target, data, roller, author)
        if action == "team":
            return self._team(encounter, actor, data, roller)
        if actor.character is not None:
            return self._pc_attacks(actor, target, data, roller, author)
        return self._npc_attacks(actor, target, data, roller, author)

    def _rage(self, actor, source, author):
        sheet = actor.character.triad
        before = sheet.vitals(_trait_names(actor.character))
        after = rules.berserker_rage(before, source)
        with character_change(character=actor.character, author=author, reason="Berserker Rage"):
            sheet.store(after)
            sheet.rage_advantage = True
            sheet.save()
        actor.state["raged"] = True
        return [
            RollResult(
                label=f"{actor.name} flies into a Berserker Rage",
                summary="Advantage on the next Body task.",
                changes=(
                    f"{_label(source)} {before.current(source)} -> {after.current(source)}",
                    f"Body {before.body} -> {after.body}",
                ),
                character=actor.character,
            )
        ]

    def _use_rage(self, combatant, author) -> str:
        """Spend Berserker Rage's waiting advantage on this Body task; the line saying so."""
        sheet = combatant.character.triad
        with character_change(
            character=combatant.character, author=author, reason="Berserker Rage advantage used"
        ):
            sheet.rage_advantage = False
            sheet.save(update_fields=["rage_advantage"])
        return "Berserker Rage: advantage"

    def chance(self, encounter, actor, action, target, data):
        """A player character's attack on a quick NPC, as ``_pc_attacks`` rolls it; an opposed roll or a
        team task as ``_opposed`` and ``_team`` do."""
        if action == "opposed" and actor.character is not None and target is not None:
            return self._opposed_odds(actor, target, data)[0]
        if action == "team" and actor.character is not None:
            return self._team_odds(encounter, actor, data)[0]
        if action != "attack" or actor.character is None or target is None or target.character is not None:
            return None
        sheet = actor.character.triad
        ability = data.get("ability") or rules.BODY
        trait = _picked_trait(actor.character, data.get("trait") or "")
        edge = rules.count_edge(
            adv_traits=int(trait is not None),
            advantages=(data.get("advantages") or 0) + (sheet.rage_advantage and ability == rules.BODY),
            disadvantages=data.get("disadvantages") or 0,
            stunned=bool(actor.state.get("stunned_this_turn")),
            extra_effort=bool(data.get("extra_effort")),
        )
        odds = rules.chance(
            getattr(sheet, ability), target.stats["difficulty"], edge=edge, adv_trait=trait is not None
        )
        return odds[rules.CRITICAL] + odds[rules.SUCCESS] + odds[rules.MIXED]

    def _pc_attacks(self, actor, target, data, roller, author):
        sheet = actor.character.triad
        traits = _trait_names(actor.character)
        ability = data["ability"]
        if target.character is not None:
            raise EncounterError("Player characters attack the GM's side.")
        trait = _picked_trait(actor.character, data.get("trait") or "")
        changes = []
        raging = sheet.rage_advantage and ability == rules.BODY
        if raging:
            changes.append(self._use_rage(actor, author))
        stunned = bool(actor.state.get("stunned_this_turn"))
        effort = bool(data.get("extra_effort"))
        edge = rules.count_edge(
            adv_traits=int(trait is not None),
            advantages=(data.get("advantages") or 0) + raging,
            disadvantages=data.get("disadvantages") or 0,
            stunned=stunned,
            extra_effort=effort,
        )
        difficulty = target.stats["difficulty"]
        current = getattr(sheet, ability)
        adv_trait = trait is not None
        vitals = sheet.vitals(traits)
        if effort:
            vitals = rules.spend(vitals, ability, 1)  # refused (nothing rolled) with no point left
        odds = rules.chance(current, difficulty, edge=edge, adv_trait=adv_trait)
        result = rules.roll_task(
            roller, ability=current, difficulty=difficulty, edge=edge, adv_trait=adv_trait
        )
        if effort:
            # The point goes once the task is settled and before any blow it lets through (Triad, l.57).
            with character_change(character=actor.character, author=author, reason="Extra effort"):
                sheet.store(vitals)
                sheet.save(update_fields=[ability])
            changes.append(f"{_label(ability)} {current} -> {vitals.current(ability)} (extra effort)")
        kind = target.stats.get("kind", rules.BODY)
        npc_weapon = rules.weapon_damage(target.stats["weapon"]) if target.stats.get("weapon") else 0
        deadly = "Deadly" in traits
        outcome = rules.attack(
            result.outcome,
            weapon=rules.weapon_damage(sheet.weapon),
            target_armor=rules.armor_rating(target.stats["armor"]),
            deadly=deadly,
            counter=npc_weapon,
            # Armor is worn against blows; it does nothing for a mind or spirit under attack.
            attacker_armor=rules.armor_rating(sheet.armor or "none") if kind == rules.BODY else 0,
        )
        if outcome.to_target:
            npc = rules.hit_npc(rules.Npc(target.name, difficulty), outcome.to_target)
            target.stats = {**target.stats, "difficulty": npc.difficulty}
            changes.append(
                f"{target.name}: Difficulty {difficulty} -> {npc.difficulty}"
                + (" (Deadly)" if deadly else "")
            )
            if npc.down:
                target.out = True
                changes.append(f"{target.name} is out of the fight")
                if "Relentless" in traits:
                    actor.state["relentless"] = True
                    changes.append(f"Relentless: {actor.name} may attack another foe at once")
            elif outcome.target_stunned:
                target.state = {**target.state, "stunned": True}
                changes.append(f"{target.name} is stunned (disadvantage on its next turn)")
        if outcome.to_attacker:
            changes += self._hurt(
                actor, outcome.to_attacker, author, source=target.name, ability=kind, own_turn=True
            )
        notes = [
            n
            for n, on in (
                (trait.name if trait else "", adv_trait),
                ("extra effort", effort),
                ("stunned", stunned),
            )
            if on
        ]
        return [
            RollResult(
                label=f"{actor.name} attacks {target.name}",
                summary=(
                    f"{_label(ability)} {result.ability} vs {difficulty}: {result.total}, {result.outcome}"
                    + (f" ({', '.join(notes)})" if notes else "")
                ),
                dice=_dice(result),
                outcome=result.outcome,
                total=result.total,
                chance=odds[rules.CRITICAL] + odds[rules.SUCCESS] + odds[rules.MIXED],
                changes=tuple(changes),
                character=actor.character,
            )
        ]

    @staticmethod
    def _side(combatant, ability: str, trait, *, stunned: bool) -> rules.Side:
        sheet = combatant.character.triad
        edge = rules.count_edge(adv_traits=int(trait is not None), stunned=stunned)
        return rules.Side(ability=getattr(sheet, ability), edge=edge, adv_trait=trait is not None)

    def _opposed_sides(self, actor, target, data):
        mine = _picked_trait(actor.character, data.get("trait") or "")
        theirs = _picked_trait(target.character, data.get("their_trait") or "")
        a = self._side(actor, data["ability"], mine, stunned=bool(actor.state.get("stunned_this_turn")))
        # The opponent's stun lasts through its own following turn; until then it weighs on every roll.
        b = self._side(target, data["their_ability"], theirs, stunned=target.character.triad.stunned)
        return a, b, mine, theirs

    def _opposed_odds(self, actor, target, data):
        """(the actor's exact chance to win, to tie)."""
        a, b, _, _ = self._opposed_sides(actor, target, data)
        odds = rules.opposed_chance(a, b)
        return odds[rules.CRITICAL] + odds[rules.SUCCESS], odds[rules.MIXED]

    def _opposed(self, actor, target, data, roller, author):
        """Triad l.45-48: both roll, the higher total wins; with harm at stake the loser is hit."""
        a, b, mine, theirs = self._opposed_sides(actor, target, data)
        ability, their_ability = data["ability"], data["their_ability"]
        win, tie = self._opposed_odds(actor, target, data)
        result = rules.roll_opposed(roller, a, b)
        changes = [
            f"Odds for {actor.name}: win {_percent(win)}, tie {_percent(tie)}, lose {_percent(1 - win - tie)}"
        ]
        winner = {"a": actor, "b": target}.get(result.winner or "")
        if winner is None:
            verdict = "a tie: mixed for both" if result.outcome == rules.MIXED else "both fumble: nobody wins"
        else:
            verdict = f"{winner.name} wins by {result.margin}" + (" (critical)" if result.critical else "")
        if data.get("harm") and winner is not None:
            loser = target if winner is actor else actor
            base = rules.weapon_damage(winner.character.triad.weapon) + (
                rules.DEADLY_BONUS if "Deadly" in _trait_names(winner.character) else 0
            )
            armor = rules.armor_rating(loser.character.triad.armor or "none")
            points = rules.damage(base, armor=armor, critical=result.critical)
            if points:
                changes += self._hurt(
                    loser, points, author, source=winner.name, ability=rules.BODY, own_turn=loser is actor
                )
        sides = (
            (actor, ability, result.a, mine),
            (target, their_ability, result.b, theirs),
        )
        told = " vs ".join(
            f"{c.name} {_label(ab)} {r.ability}: {r.total}" + (f" ({t.name})" if t else "")
            for c, ab, r, t in sides
        )
        return [
            RollResult(
                label=f"{actor.name} vs {target.name}: opposed roll",
                summary=f"{told}: {verdict}",
                dice=_dice(result.a) + _dice(result.b),
                outcome=result.outcome,
                total=result.a.total,
                chance=win,
                changes=tuple(changes),
                character=actor.character,
                extra={"opponent_total": result.b.total, "winner": result.winner or ""},
            )
        ]

    def _team_sides(self, encounter, actor, data):
        by_pk = {str(c.pk): c for c in encounter.combatants.all() if c.character is not None}
        members = [actor, *(by_pk[pk] for pk in data["helpers"] if pk in by_pk and pk != str(actor.pk))]
        sides = [
            self._side(
                m,
                data["ability"],
                None,
                stunned=bool(m.state.get("stunned_this_turn")) if m is actor else m.character.triad.stunned,
            )
            for m in members
        ]
        return members, sides

    def _team_odds(self, encounter, actor, data):
        """(the team's exact chance to succeed, every outcome's odds)."""
        _, sides = self._team_sides(encounter, actor, data)
        adv_trait = bool(data.get("adv_trait"))
        odds = rules.team_chance(sides, data["difficulty"], adv_trait=adv_trait)
        return odds[rules.CRITICAL] + odds[rules.SUCCESS] + (odds[rules.MIXED] if adv_trait else 0), odds

    def _team(self, encounter, actor, data, roller):
        """Triad l.50: every member rolls, the best single number counts, anyone's 1 fumbles it all."""
        members, sides = self._team_sides(encounter, actor, data)
        ability, difficulty = data["ability"], data["difficulty"]
        adv_trait = bool(data.get("adv_trait"))
        success, odds = self._team_odds(encounter, actor, data)
        result = rules.roll_team(roller, sides, difficulty, adv_trait=adv_trait)
        dice = tuple(
            die for side, faces in zip(sides, result.faces, strict=True) for die in _side_dice(side, faces)
        )
        told = ", ".join(
            f"{m.name} {_label(ability)} {side.ability}" for m, side in zip(members, sides, strict=True)
        )
        return [
            RollResult(
                label=f"{actor.name} leads a team task",
                summary=f"{told} vs {difficulty}: best {result.total}, {result.outcome}",
                dice=dice,
                outcome=result.outcome,
                total=result.total,
                chance=success,
                changes=(
                    f"Odds of the team: {_percent(success)} to succeed, "
                    f"{_percent(odds[rules.FUMBLE])} to fumble",
                ),
                character=actor.character,
            )
        ]

    # ----- an NPC's attack, held off by the player character it aims at ---------------------------

    def open_defence(self, encounter, actor, action, target, data, roller, author):
        """The NPC's attack waits for the defending player's choices (the trait, extra effort); the GM's
        calls (the kind of attack, disadvantages) are kept for it. A dying target cannot defend."""
        if target.character.triad.dying:
            return self.act(encounter, actor, action, target, data, roller, author), None
        self._spend_action(actor, action)
        return [], {"kind": data.get("kind") or "", "disadvantages": data.get("disadvantages") or 0}

    def defence(self, encounter, pending, attacker, defender):
        kind = pending.get("kind") or attacker.stats.get("kind", rules.BODY)
        traits = _adv_traits(defender.character)
        choices = [(str(t.pk), t.name) for t in traits]
        odds = tuple(
            (name, self._defence_odds(attacker, defender, {**pending, "trait": key}))
            for key, name in [("", "No (Adv.) trait"), *choices]
        )
        return Defence(
            prompt=f"{attacker.name} attacks {defender.name}: hold it off with {_label(kind)} "
            f"against Difficulty {attacker.stats['difficulty']}.",
            form_class=_with_traits(TriadDefenceForm, choices),
            label="Defend",
            help=f"A success holds the {KIND_LABELS[kind]} attack off; anything less lets its weapon land.",
            odds=odds,
        )

    def defence_chance(self, encounter, pending, attacker, defender, data):
        return self._defence_odds(attacker, defender, {**pending, **data})

    def defend(self, encounter, pending, attacker, defender, data, roller, author):
        return self._npc_attacks(attacker, defender, {**pending, **data}, roller, author)

    def _defence_edge(self, actor, target, data, trait) -> tuple[str, int]:
        """(the score the defence rolls, its edge) against the NPC ``actor``'s attack."""
        sheet = target.character.triad
        kind = data.get("kind") or actor.stats.get("kind", rules.BODY)
        raging = sheet.rage_advantage and kind == rules.BODY
        # A stunned NPC attacks at disadvantage: in a roll only the defender makes, that is its advantage.
        npc_stunned = bool(actor.state.get("stunned_this_turn"))
        edge = rules.count_edge(
            adv_traits=int(trait is not None),
            advantages=raging + npc_stunned,
            disadvantages=data.get("disadvantages") or 0,
            evading=bool(target.state.get("evading")),
            extra_effort=bool(data.get("extra_effort")),
        )
        return kind, edge

    def _defence_odds(self, actor, target, data):
        """The chance the defence holds the NPC off, as ``_npc_attacks`` records it."""
        trait = _picked_trait(target.character, data.get("trait") or "")
        kind, edge = self._defence_edge(actor, target, data, trait)
        adv_trait = trait is not None
        current = getattr(target.character.triad, kind)
        odds = rules.chance(current, actor.stats["difficulty"], edge=edge, adv_trait=adv_trait)
        return odds[rules.CRITICAL] + odds[rules.SUCCESS] + (odds[rules.MIXED] if adv_trait else 0)

    def _npc_attacks(self, actor, target, data, roller, author):
        sheet = target.character.triad
        kind = data.get("kind") or actor.stats.get("kind", rules.BODY)
        difficulty = actor.stats["difficulty"]
        weapon = rules.weapon_damage(actor.stats["weapon"]) if actor.stats.get("weapon") else 0
        armor = rules.armor_rating(sheet.armor or "none") if kind == rules.BODY else 0
        if sheet.dying:
            # A dying character cannot act, so it cannot hold the blow off: it lands.
            points = rules.damage(weapon, armor=armor)
            changes = self._hurt(target, points, author, source=actor.name, ability=kind) if points else []
            return [
                RollResult(
                    label=f"{actor.name} attacks {target.name}",
                    summary=f"{target.name} is dying and cannot defend: the {KIND_LABELS[kind]} hit lands.",
                    changes=tuple(changes),
                    character=target.character,
                )
            ]
        trait = _picked_trait(target.character, data.get("trait") or "")
        changes = []
        raging = sheet.rage_advantage and kind == rules.BODY
        kind, edge = self._defence_edge(actor, target, data, trait)
        effort = bool(data.get("extra_effort"))
        vitals = sheet.vitals(_trait_names(target.character))
        if effort:
            vitals = rules.spend(vitals, kind, 1)  # refused (nothing rolled) with no point left
        if raging:
            changes.append(self._use_rage(target, author))
        evading = bool(target.state.get("evading"))
        npc_stunned = bool(actor.state.get("stunned_this_turn"))
        current = getattr(sheet, kind)
        adv_trait = trait is not None
        odds = rules.chance(current, difficulty, edge=edge, adv_trait=adv_trait)
        result = rules.roll_task(
            roller, ability=current, difficulty=difficulty, edge=edge, adv_trait=adv_trait
        )
        if effort:
            # Extra effort on the defence (Triad, l.57): the point goes once the roll is settled, before
            # the blow it did not stop.
            with character_change(character=target.character, author=author, reason="Extra effort"):
                sheet.store(vitals)
                sheet.save(update_fields=[kind])
            changes.append(f"{_label(kind)} {current} -> {vitals.current(kind)} (extra effort)")
        # The defender's roll: a success holds the NPC off, anything less lets its weapon land.
        hit = result.failed
        if hit and weapon:
            points = rules.damage(weapon, armor=armor)
            if points:
                changes += self._hurt(target, points, author, source=actor.name, ability=kind)
        notes = [
            n
            for n, on in (
                (trait.name if trait else "", adv_trait),
                ("extra effort", effort),
                ("evading", evading),
                (f"{actor.name} stunned", npc_stunned),
            )
            if on
        ]
        return [
            RollResult(
                label=f"{actor.name} attacks {target.name}",
                summary=(
                    f"{target.name} defends with {_label(kind)} {result.ability} vs {difficulty}: "
                    f"{result.total}, {result.outcome}"
                    + (f" ({', '.join(notes)})" if notes else "")
                    + (" - hit" if hit else " - held off")
                ),
                dice=_dice(result),
                outcome=result.outcome,
                total=result.total,
                chance=odds[rules.CRITICAL] + odds[rules.SUCCESS] + (odds[rules.MIXED] if adv_trait else 0),
                changes=tuple(changes),
                character=target.character,
            )
        ]

    def _hurt(
        self, combatant, points: int, author, *, source: str, ability: str, own_turn: bool = False
    ) -> list[str]:
        """Damage (after armor) lands on a player character's score: stun, Hard To ..., dying, death."""
        sheet = combatant.character.triad
        vitals = sheet.vitals(_trait_names(combatant.character))
        report = rules.take_damage(vitals, points, ability=ability)
        with character_change(
            character=combatant.character, author=author, reason=f"{points} damage from {source}"
        ):
            fields = sheet.store(report.vitals)
            stunned = report.stunned and not report.dead
            sheet.stunned = sheet.stunned or stunned
            sheet.save(update_fields=[*fields, "stunned"])
        label = _label(ability)
        before, after = vitals.current(ability), report.vitals.current(ability)
        changes = [f"{combatant.name}: {label} {before} -> {after} ({points} damage)"]
        if report.saved_by:
            changes.append(
                f"{report.saved_by} keeps {combatant.name} going (used until {label} is full again)"
            )
        if report.dead:
            combatant.out = True
            changes.append(f"{combatant.name} dies")
            return changes
        if stunned:
            if own_turn:
                combatant.state = {**combatant.state, "stunned_anew": True}
            changes.append(f"{combatant.name} is stunned (disadvantage on the next turn)")
        if report.dying:
            changes.append(f"{combatant.name} is dying")
        return changes

    def summary(self, combatant, *, for_gm):
        if combatant.character is None:
            stats = combatant.stats
            stunned = combatant.state.get("stunned") or combatant.state.get("stunned_this_turn")
            if not for_gm:
                return (
                    "out"
                    if combatant.out
                    else ("hurt" if stats["difficulty"] < stats["max_difficulty"] else "")
                ) + (" · stunned" if stunned and not combatant.out else "")
            return (
                f"Difficulty {stats['difficulty']}/{stats['max_difficulty']}"
                + (" · out" if combatant.out else "")
                + (" · stunned" if stunned and not combatant.out else "")
            )
        sheet = combatant.character.triad
        flags = [
            f
            for f, on in (
                ("stunned", sheet.stunned),
                ("evading", combatant.state.get("evading")),
                ("raging", sheet.rage_advantage),
                ("dying", sheet.dying),
                ("dead", sheet.dead),
            )
            if on
        ]
        return (
            f"Body {sheet.body}/{sheet.body_max} · Mind {sheet.mind}/{sheet.mind_max} · "
            f"Spirit {sheet.spirit}/{sheet.spirit_max}" + "".join(f" · {f}" for f in flags)
        )

    def is_out(self, combatant):
        if combatant.character is not None:
            return combatant.character.triad.dead  # the sheet decides, so undoing a death brings it back
        return combatant.out


combat = TriadCombat()
