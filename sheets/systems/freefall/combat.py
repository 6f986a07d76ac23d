"""FREE/FALL A5 fights: everyone declares, then the declared actions resolve last-declared-first,
and every hit runs the harm protocol (armor, mitigate, then temp / perm / break gear per level).

The round is two phases inside the generic turn machinery. Turns 0..N-1 (N = combatants) are the
declaration phase: on each combatant's turn the GM records its actions one by one (dice, TN tier,
target) and locks them in. The turns after that are the resolution phase, one per declared action, in
``encounter.state["queue"]`` order (reverse declaration order, clashes settled by the highest die).
A hit opens ``encounter.state["pending_harm"]``; while it is open the turn belongs to the one taking
the harm, who must mitigate and then take each level before anything else can happen.

Readings taken (where the seed leaves room):

- Declaration order is the encounter's order, which the GM sets with the arrows beside each combatant
  (before the fight, and as each round opens, before anyone declares); whoever sits last declares last
  and resolves first. A combatant may pass (Next turn) and declare nothing.
- Mitigation ("Spend Current Attributes (1-for-1)") takes points from any current attribute, mixed
  freely: the passage names no attribute, unlike the harm types beside it.
- A hack is a declared action with an active program (its tier bonus on every die, any natural 1
  compromises it on the sheet) or the specialty (no bonus, nothing to lose). It names no target and
  deals no harm by itself: the seed gives programs no DV, so what a success does is the GM's call.
- Two actions "directly oppose" (a clash) when each targets the other's declarer: A attacks B while B
  attacks A. The whole clash is rolled together when the first of its actions comes up; the highest
  natural die acts first among the places those actions already hold (``rules.resolution_order``).
- Every die of the round is assigned before anything resolves, so harm taken this round shrinks the
  pool from the next round on; an action still resolves after its declarer was hurt, but not after its
  declarer was taken out.
- An attack hits on a success or a greater success (a greater success is a narrative edge: the same
  DV). Attacks declared in an encounter are in range, so a natural 20 doubles the DV.
- A player character attacks with a weapon from the sheet (its DV, Piercing and High Impact); bare
  hands have DV 1 (the seed gives no unarmed DV; 1 is the least that still harms). Armor is the best
  unbroken item's AV. Quick NPCs have one weapon DV and one armor AV, and their current attributes
  only pay for mitigation; they meet every prerequisite (their kit is what the GM says it is).
- Prerequisite costs are paid when the declaration is locked in (Phase 2): a spent attribute point
  comes off the sheet then, and a "take harm" level starts the harm protocol at once, at its resolve
  step (no armor, no mitigation).
- A quick NPC's declarations, mitigation and harm slots are logged for the GM only (its numbers are the
  GM's); the rolls and the hits are public.
- When no option can absorb a level (all slots permanent, no unbroken bound gear), the combatant is
  taken out and the levels left are recorded; what that means (dying, captured) is the GM's call.
"""

from __future__ import annotations

from typing import Any

from django import forms

from campaigns.forms import WholeNumberField
from rules import freefall as rules
from sheets.combat import Action, CombatRules, EncounterError, RollResult
from sheets.contract import Die
from sheets.services import character_change

from .sheet import CONDITION_TO_ENGINE, OUTCOME_LABELS, _engine_program
from .sheet import system as sheet_system

DECLARE, RESOLVE = "declare", "resolve"
UNARMED_DV = 1
CONDITION_TO_MODEL = {engine: model for model, engine in CONDITION_TO_ENGINE.items()}
# Short labels: the GM's action forms put four fields in a row.
DIFFICULTY_CHOICES = [(d.value, f"{d.tn} {d.label}") for d in rules.Difficulty]
KIND_CHOICES = [(k.value, k.value.title()) for k in rules.HarmKind]
PLAIN = "plain"
PREREQUISITE_CHOICES = (
    [("gear", "Gear"), ("specialty", "Specialty")]
    + [(f"spend:{a.value}", f"Spend {a.label}") for a in rules.Attribute]
    + [(f"harm:{k.value}", f"Take {k.value} harm") for k in rules.HarmKind]
)
RESOLVE_CHOICES = [
    (rules.Resolve.TEMP.value, "Temporary harm"),
    (rules.Resolve.PERM.value, "Make a temporary harm permanent"),
    (rules.Resolve.BREAK_GEAR.value, "Break bound gear"),
]
SLOT_CHOICES = [("", "First that fits")] + [(str(i), f"Slot {i}") for i in range(1, rules.HARM_SLOTS + 1)]


class FreeFallNpcForm(forms.Form):
    body = WholeNumberField(min_value=0, max_value=rules.ATTRIBUTE_MAX, initial=3, label="BODY")
    mind = WholeNumberField(min_value=0, max_value=rules.ATTRIBUTE_MAX, initial=2, label="MIND")
    ghost = WholeNumberField(min_value=0, max_value=rules.ATTRIBUTE_MAX, initial=2, label="GHOST")
    av = WholeNumberField(min_value=0, max_value=10, initial=0, label="Armor AV")
    dv = WholeNumberField(min_value=0, max_value=10, initial=2, label="Weapon DV")


def _mitigate_form(current: rules.Attributes, levels: int) -> type[forms.Form]:
    """One number per attribute: any current attribute pays for mitigation (docs/rules.md, l.73)."""
    fields = {
        a.value: WholeNumberField(
            min_value=0,
            max_value=min(current[a], levels),
            initial=0,
            required=False,
            label=f"{a.label} ({current[a]} left)",
        )
        for a in rules.Attribute
    }
    return type("FreeFallMitigateForm", (forms.Form,), fields)


# ----- what a combatant has to work with -----------------------------------------------------------


def _npc_track(stats: dict[str, Any]) -> rules.HarmTrack:
    return rules.HarmTrack(tuple(rules.HarmSlot(state, kind) for state, kind in stats["harm"]))


def _track_json(track: rules.HarmTrack) -> list[list[str | None]]:
    return [[s.state.value, s.kind.value if s.kind else None] for s in track.slots]


def _resources(combatant) -> tuple[rules.HarmTrack, rules.Attributes, tuple[rules.Gear, ...], int]:
    """Harm track, current attributes, gear and armor, from the sheet or the quick NPC's stats."""
    if combatant.character is None:
        stats = combatant.stats
        current = rules.Attributes(stats["body"], stats["mind"], stats["ghost"])
        return _npc_track(stats), current, (), stats["av"]
    state = sheet_system.state(combatant.character)
    return state.track, state.current, state.gear, state.armor


def _slots_text(track: rules.HarmTrack) -> str:
    return " / ".join(f"{s.state.value} {s.kind.value}" if s.kind else "-" for s in track.slots)


def _row_text(row: dict[str, Any]) -> str:
    target = f" at {row['target_name']}" if row.get("target") else ""
    if row.get("hack"):
        tool = f" with {row['program']}" if row["program"] else " by specialty"
        bonus = f"+{row['bonus']}" if row["bonus"] else ""
        return f"{row['name']}{tool} {row['dice']}d20{bonus} vs TN {row['tn']}"
    return f"{row['name']}{target} {row['dice']}d20 vs TN {row['tn']}"


def _engine_action(row: dict[str, Any]) -> rules.Action:
    if row.get("hack"):
        if row["program"]:
            return rules.Action(row["name"], row["dice"], hacking=True, program=row["program"])
        return rules.Action(row["name"], row["dice"], hacking=True, prerequisite="specialty")
    prerequisite = row.get("prerequisite") or PLAIN
    if prerequisite == PLAIN:
        return rules.Action(row["name"], row["dice"], specialized=False)
    how, _, what = prerequisite.partition(":")
    if how == "spend":
        return rules.Action(row["name"], row["dice"], prerequisite="spend_attribute", attribute=what)
    if how == "harm":
        return rules.Action(row["name"], row["dice"], prerequisite="take_harm", harm_kind=what)
    return rules.Action(row["name"], row["dice"], prerequisite=how, gear=row.get("gear") or None)


def _declaration_form(actor, *, attack: bool) -> type[forms.Form]:
    """The form for one declared action; a player character's lists its own gear and prerequisites."""
    fields: dict[str, forms.Field] = {
        "name": forms.CharField(max_length=40, initial="Attack" if attack else "", label="Action"),
        "dice": WholeNumberField(min_value=1, max_value=rules.BASE_POOL, initial=1, label="Dice"),
        "difficulty": forms.ChoiceField(
            choices=DIFFICULTY_CHOICES, initial=rules.Difficulty.CHALLENGING.value, label="TN"
        ),
    }
    if actor.character is not None:
        gear = sheet_system.state(actor.character).gear
        weapons = [(g.name, f"{g.name} (DV {g.dv})") for g in gear if g.dv and g.usable]
        if attack:
            # The first weapon is shown chosen, to go with the "gear" prerequisite shown beside it.
            fields["gear"] = forms.ChoiceField(
                choices=weapons + [("", f"Bare hands (DV {UNARMED_DV})")],
                initial=weapons[0][0] if weapons else "",
                required=False,
                label="Weapon",
            )
        else:
            fields["gear"] = forms.ChoiceField(
                choices=[("", "-")] + [(g.name, g.name) for g in gear if g.usable],
                required=False,
                label="Gear",
            )
        fields["prerequisite"] = forms.ChoiceField(
            choices=PREREQUISITE_CHOICES if attack else [(PLAIN, "None (plain)")] + PREREQUISITE_CHOICES,
            # As first shown the form must be accepted: bare hands are no gear, so they lean on the
            # specialty until the GM picks another way.
            initial=("gear" if weapons else "specialty") if attack else PLAIN,
            required=False,
            label="Prerequisite",
        )
    if attack:
        fields["kind"] = forms.ChoiceField(choices=KIND_CHOICES, initial="physical", label="Harm")
    return type("FreeFallAttackForm" if attack else "FreeFallTaskForm", (forms.Form,), fields)


def _programs(character) -> list[rules.Program]:
    return [_engine_program(row) for row in character.ff_programs.all()]


def _hack_form(actor) -> type[forms.Form]:
    """A hack: an active program (its tier bonus) or the specialty (l.134)."""
    active = [p for p in _programs(actor.character) if p.active]
    specialty = actor.character.freefall.specialty
    fields: dict[str, forms.Field] = {
        "name": forms.CharField(max_length=40, initial="Hack", label="Action"),
        "dice": WholeNumberField(min_value=1, max_value=rules.BASE_POOL, initial=1, label="Dice"),
        "difficulty": forms.ChoiceField(
            choices=DIFFICULTY_CHOICES, initial=rules.Difficulty.CHALLENGING.value, label="TN"
        ),
        "program": forms.ChoiceField(
            choices=[(p.name, f"{p.name} ({p.tier.label} +{p.bonus})") for p in active]
            + [("", f"No program: {specialty}")],
            initial=active[0].name if active else "",  # shown chosen: the first running program
            required=False,
            label="Program",
        ),
    }
    return type("FreeFallHackForm", (forms.Form,), fields)


def _resolve_form(actor, options: frozenset[rules.Resolve], track: rules.HarmTrack) -> type[forms.Form]:
    # Only the options open now (l.130: no temporary harm once every slot holds it), so the first shown
    # is always one the rules accept.
    if track.count(rules.SlotState.TEMP) == rules.HARM_SLOTS:
        refused = "Every slot holds temporary harm: make one permanent or break gear."
    elif not track.count(rules.SlotState.EMPTY):
        refused = "No empty harm slot is left: make a temporary harm permanent or break gear."
    else:
        refused = "That way of taking harm is not open now; choose one from the list."
    fields: dict[str, forms.Field] = {
        "option": forms.ChoiceField(
            choices=[(key, label) for key, label in RESOLVE_CHOICES if key in options],
            label="Take it as",
            error_messages={"invalid_choice": refused},
        ),
        "slot": forms.ChoiceField(choices=SLOT_CHOICES, required=False, label="Slot"),
    }
    if actor.character is not None:
        bound = [(g.name, g.name) for g in sheet_system.state(actor.character).gear if g.bound and g.usable]
        fields["gear"] = forms.ChoiceField(choices=[("", "First bound item")] + bound, required=False)
    return type("FreeFallResolveForm", (forms.Form,), fields)


class FreeFallCombat(CombatRules):
    key = "freefall"
    npc_form_class = FreeFallNpcForm

    def npc_stats(self, cleaned_data):
        attributes = {a.value: cleaned_data[a.value] for a in rules.Attribute}
        return {
            **attributes,
            "max": attributes,
            "av": cleaned_data["av"],
            "dv": cleaned_data["dv"],
            "harm": _track_json(rules.HarmTrack()),
        }

    # ----- the round -------------------------------------------------------------------------------

    def _fresh_round(self, encounter, combatants) -> None:
        encounter.state = {
            **{k: v for k, v in encounter.state.items() if k == "start"},
            "phase": DECLARE,
            "seats": len(combatants),
            "declarations": [],
            "queue": [],
            "pending_harm": [],
        }
        for combatant in combatants:
            combatant.state = {}

    def start(self, encounter, combatants, roller):
        self._fresh_round(encounter, combatants)
        return [self._round_line(encounter, combatants)]

    def new_round(self, encounter, combatants):
        self._fresh_round(encounter, combatants)
        return [self._round_line(encounter, combatants)]

    def _round_line(self, encounter, combatants) -> RollResult:
        pools = ", ".join(
            f"{c.name} {_resources(c)[0].pool}d20" for c in combatants if c.character and not c.out
        )
        return RollResult(
            label=f"Round {encounter.round}: declare", summary=f"Everyone declares. Pools: {pools}."
        )

    def current_actor(self, encounter, combatants):
        by_pk = {c.pk: c for c in combatants}
        pending = encounter.state.get("pending_harm") or []
        if pending and pending[0]["target"] in by_pk:
            return by_pk[pending[0]["target"]]  # the one taking the harm chooses how
        step = encounter.turn - len(combatants)
        queue = encounter.state.get("queue") or []
        if 0 <= step < len(queue) and queue[step]["by"] in by_pk:
            return by_pk[queue[step]["by"]]
        return combatants[encounter.turn % len(combatants)]

    def turns_in_round(self, encounter, combatants):
        return len(combatants) + len(encounter.state.get("queue") or [])

    def turn_over(self, encounter, actor, action):
        return action in ("declare", "roll", "mitigate", "resolve") and not encounter.state.get(
            "pending_harm"
        )

    def order_settable(self, encounter, combatants):
        # The GM sets who declares first (l.9, l.51): before the fight, or as a round opens, before
        # anyone has started declaring.
        if encounter.status == "setup":
            return True
        state = encounter.state
        return (
            state.get("phase") == DECLARE
            and not state.get("declarations")
            and not state.get("pending_harm")
            and not any(c.state.get("declaring") for c in combatants)
        )

    def order_changed(self, encounter, combatants):
        if encounter.status == "setup":
            return []
        encounter.turn = 0  # declarations start again from the new first
        return [
            RollResult(
                label=f"Round {encounter.round}: declaration order",
                summary=" then ".join(c.name for c in combatants if not c.out)
                + " (the last to declare resolves first).",
            )
        ]

    def hold(self, encounter, combatants):
        pending = encounter.state.get("pending_harm") or []
        if pending:
            return f"{pending[0]['target_name']} must take the harm first (mitigate, then each level)."
        actor = self.current_actor(encounter, combatants)
        if actor.state.get("declaring"):
            return f"Lock in or clear {actor.name}'s declaration first."
        return ""

    def begin_turn(self, encounter, actor, author):
        step = encounter.turn - encounter.state["seats"]
        if step < 0 or encounter.state.get("phase") == RESOLVE:
            return []
        encounter.state["phase"] = RESOLVE
        return [RollResult(label="Resolution", summary="All declared: actions resolve, last declared first.")]

    # ----- what the GM may do now ------------------------------------------------------------------

    def actions(self, encounter, actor, combatants):
        pending = encounter.state.get("pending_harm") or []
        if pending:
            harm = pending[0]
            what = f"{harm['kind']} harm ({harm['remaining']} level{'s' if harm['remaining'] != 1 else ''})"
            if harm["stage"] == rules.Stage.MITIGATE:
                current = _resources(actor)[1]
                return [
                    Action(
                        "mitigate",
                        f"Mitigate {what}",
                        form_class=_mitigate_form(current, harm["remaining"]),
                        help="Spend current attribute points, one per level negated, from any attribute; "
                        "all 0 keeps them all.",
                    )
                ]
            incoming = self._incoming(actor, harm)
            return [
                Action(
                    "resolve",
                    f"Take a level of {what}",
                    form_class=_resolve_form(actor, incoming.options, incoming.track),
                    help="One level at a time. With every slot holding temporary harm, only permanent harm "
                    "or breaking bound gear is left.",
                )
            ]
        if encounter.turn < len(combatants):
            return self._declaring_actions(actor, combatants)
        step = encounter.turn - len(combatants)
        item = encounter.state["queue"][step]
        target = next((c for c in combatants if c.pk == item["target"]), None)
        clash = item["clash"] and item["faces"] is None
        return [
            Action(
                "roll",
                ("Roll the clash: " if clash else "Roll: ") + _row_text(item),
                needs_target=target is not None,
                targets=(target,) if target is not None else (),
                help="Clashing actions are rolled together; the highest single die acts first."
                if clash
                else "",
            )
        ]

    def _declaring_actions(self, actor, combatants):
        rows = actor.state.get("declaring") or []
        left = _resources(actor)[0].pool - sum(r["dice"] for r in rows)
        found = []
        if left > 0:
            foes = tuple(c for c in combatants if c.side != actor.side and not self.is_out(c))
            found += [
                Action(
                    "attack",
                    "Declare an attack",
                    needs_target=True,
                    form_class=_declaration_form(actor, attack=True),
                    targets=foes,
                    help=f"{left} of {left + sum(r['dice'] for r in rows)} dice left to assign.",
                ),
                Action("task", "Declare an action", form_class=_declaration_form(actor, attack=False)),
            ]
            if actor.character is not None:
                found.append(
                    Action(
                        "hack",
                        "Declare a hack",
                        form_class=_hack_form(actor),
                        help="An active program adds its tier to every die; a natural 1 on any die "
                        "compromises it for the mission. Without one, the specialty earns the roll.",
                    )
                )
        if rows:
            found += [
                Action("declare", "Lock in: " + "; ".join(_row_text(r) for r in rows)),
                Action("clear", "Clear the declaration"),
            ]
        return found

    # ----- doing it --------------------------------------------------------------------------------

    def act(self, encounter, actor, action, target, data, roller, author):
        if action in ("attack", "task"):
            return self._add(actor, action, target, data)
        if action == "hack":
            return self._add_hack(actor, data)
        if action == "clear":
            actor.state = {k: v for k, v in actor.state.items() if k != "declaring"}
            return []
        if action == "declare":
            return self._lock_in(encounter, actor, author)
        if action == "roll":
            return self._roll(encounter, actor, target, roller, author)
        if action == "mitigate":
            return self._mitigate(encounter, actor, data, author)
        return self._take(encounter, actor, data, author)

    def chance(self, encounter, actor, action, target, data):
        """A declaration priced as it will roll (its dice against its TN), or the declared roll due now."""
        if action in ("attack", "task", "hack"):
            tn = rules.Difficulty(data["difficulty"]).tn
            if action == "hack":
                programs = _programs(actor.character)
                program = next((p for p in programs if p.name == data.get("program")), None)
                return rules.hack_odds(data["dice"], tn, program=program).at_least_success
            return rules.odds(data["dice"], tn).at_least_success
        if action != "roll":
            return None
        item = encounter.state["queue"][encounter.turn - encounter.state["seats"]]
        if item.get("hack"):
            row = actor.character.ff_programs.filter(name=item["program"]).first()
            program = _engine_program(row) if row is not None and not row.compromised else None
            return rules.hack_odds(item["dice"], item["tn"], program=program).at_least_success
        return rules.odds(item["dice"], item["tn"]).at_least_success

    def _add(self, actor, action, target, data):
        cleaned = data
        difficulty = rules.Difficulty(cleaned["difficulty"])
        row = {
            "by": actor.pk,
            "name": cleaned["name"].strip() or "Action",
            "dice": cleaned["dice"],
            "difficulty": difficulty.value,
            "tn": difficulty.tn,
            "target": target.pk if target is not None else None,
            "target_name": target.name if target is not None else "",
            "prerequisite": cleaned.get("prerequisite") or ("gear" if target is not None else PLAIN),
            "gear": cleaned.get("gear", ""),
        }
        if target is not None:
            row.update(self._weapon(actor, cleaned.get("gear", "")), kind=cleaned["kind"])
        rows = (actor.state.get("declaring") or []) + [row]
        self._validate(actor, rows)
        actor.state = {**actor.state, "declaring": rows}
        return []

    def _add_hack(self, actor, data):
        difficulty = rules.Difficulty(data["difficulty"])
        program = next((p for p in _programs(actor.character) if p.name == data.get("program")), None)
        row = {
            "by": actor.pk,
            "name": data["name"].strip() or "Hack",
            "dice": data["dice"],
            "difficulty": difficulty.value,
            "tn": difficulty.tn,
            "target": None,
            "target_name": "",
            "hack": True,
            "program": program.name if program is not None else "",
            "bonus": program.bonus if program is not None else 0,
            "prerequisite": "program" if program is not None else "specialty",
            "gear": "",
        }
        rows = (actor.state.get("declaring") or []) + [row]
        self._validate(actor, rows)
        actor.state = {**actor.state, "declaring": rows}
        return []

    def _weapon(self, actor, gear_name: str) -> dict[str, Any]:
        if actor.character is None:
            return {"dv": actor.stats["dv"], "piercing": False, "high_impact": False}
        weapon = next((g for g in sheet_system.state(actor.character).gear if g.name == gear_name), None)
        if weapon is None:
            return {"dv": UNARMED_DV, "piercing": False, "high_impact": False}
        return {"dv": weapon.dv, "piercing": weapon.piercing, "high_impact": weapon.high_impact}

    def _validate(self, actor, rows) -> rules.Declaration:
        track, current, gear, _ = _resources(actor)
        if actor.character is None:
            plain = [rules.Action(r["name"], r["dice"], specialized=False) for r in rows]
            return rules.validate_declaration(plain, pool=track.pool)
        return rules.validate_declaration(
            [_engine_action(r) for r in rows],
            pool=track.pool,
            current=current,
            gear=gear,
            programs=_programs(actor.character),
            specialty=actor.character.freefall.specialty,
        )

    def _lock_in(self, encounter, actor, author):
        rows = actor.state.get("declaring") or []
        if not rows:
            raise EncounterError("Declare at least one action first, or pass with Next turn.")
        declaration = self._validate(actor, rows)
        changes = []
        if actor.character is not None and any(declaration.spent[a] for a in rules.Attribute):
            sheet = actor.character.freefall
            with character_change(
                character=actor.character, author=author, reason="Attribute spent to force"
            ):
                for a in rules.Attribute:
                    if declaration.spent[a]:
                        setattr(
                            sheet,
                            f"{a.value}_spent",
                            getattr(sheet, f"{a.value}_spent") + declaration.spent[a],
                        )
                        changes.append(
                            f"{actor.name} spends {declaration.spent[a]} {a.label} to force an action"
                        )
                sheet.save(update_fields=[f"{a.value}_spent" for a in rules.Attribute])
        for kind in declaration.harm:
            encounter.state["pending_harm"].append(
                self._pending(
                    actor, kind=kind.value, levels=1, stage=rules.Stage.RESOLVE, source="pushing limits"
                )
            )
            changes.append(f"{actor.name} takes 1 level of {kind.value} harm to push limits")
        encounter.state["declarations"].append({"by": actor.pk, "name": actor.name, "actions": rows})
        encounter.state["queue"] = self._queue(encounter.state["declarations"])
        actor.state = {"declared": rows}
        lines = [
            RollResult(
                label=f"{actor.name} declares",
                summary="; ".join(_row_text(r) for r in rows) + f" ({declaration.dice_assigned} of "
                f"{declaration.pool} dice)",
                changes=tuple(changes),
                character=actor.character,
                secret=actor.character is None,
            )
        ]
        return lines + self._settle(encounter, actor, author)

    @staticmethod
    def _queue(declarations) -> list[dict[str, Any]]:
        """Every declared action, last declared first; mutual attacks share a clash tag."""
        flat = [dict(row, faces=None, clash=None) for d in declarations for row in d["actions"]]
        for row in flat:
            if row["target"] is not None and any(
                o["by"] == row["target"] and o["target"] == row["by"] for o in flat
            ):
                row["clash"] = "-".join(str(pk) for pk in sorted((row["by"], row["target"])))
        return list(reversed(flat))

    def _roll(self, encounter, actor, target, roller, author):
        queue = encounter.state["queue"]
        step = encounter.turn - encounter.state["seats"]
        item = queue[step]
        lines = []
        if item["faces"] is None:
            present = {actor.pk: actor, **({target.pk: target} if target is not None else {})}
            group = [
                i
                for i in range(step, len(queue))
                if item["clash"]
                and queue[i]["clash"] == item["clash"]
                and queue[i]["faces"] is None
                and queue[i]["by"] in present
                and not self.is_out(present[queue[i]["by"]])
            ] or [step]
            for i in group:
                queue[i]["faces"] = roller.dice(queue[i]["dice"], rules.DIE)
            if len(group) > 1:
                lines.append(self._settle_clash(queue, step, group))
        item = queue[step]
        by = {actor.pk: actor, **({target.pk: target} if target is not None else {})}
        attacker, victim = by[item["by"]], by.get(item["target"]) if item["target"] is not None else None
        if item.get("hack"):
            return lines + self._hack(item, attacker, author)
        result = rules.check(item["faces"], item["tn"])
        odds = rules.odds(item["dice"], item["tn"])
        notes = [n for n, on in (("natural 20", result.crit), ("complication", result.complication)) if on]
        changes = []
        if victim is not None and result.successes:
            changes += self._hit(encounter, item, victim, crit=result.crit)
        summary = (
            f"{item['dice']}d20 vs TN {item['tn']}: {result.successes} success"
            f"{'es' if result.successes != 1 else ''}, {OUTCOME_LABELS[result.outcome]}"
            + (f" ({', '.join(notes)})" if notes else "")
        )
        lines.append(
            RollResult(
                label=f"{attacker.name}: {item['name']}" + (f" at {victim.name}" if victim else ""),
                summary=summary,
                dice=tuple(Die(face, sides=rules.DIE) for face in result.faces),
                outcome=result.outcome,
                outcome_label=OUTCOME_LABELS[result.outcome],
                chance=odds.at_least_success,
                changes=tuple(changes),
                character=attacker.character,
            )
        )
        return lines

    def _hack(self, item, attacker, author) -> list[RollResult]:
        """Roll a declared hack with the program as it is now: its tier on every die, a 1 compromises it."""
        character = attacker.character
        row = character.ff_programs.filter(name=item["program"]).first() if item["program"] else None
        label = f"{attacker.name}: {item['name']}"
        if item["program"] and (row is None or row.compromised):
            # Compromised earlier this round (or removed): it is lost for the mission (l.134).
            return [
                RollResult(
                    label=label,
                    summary=f"{item['program']} is compromised or gone: the hack cannot run.",
                    character=character,
                )
            ]
        program = _engine_program(row) if row is not None else None
        hacked = rules.hack(item["faces"], item["tn"], program=program)
        result = hacked.check
        odds = rules.hack_odds(item["dice"], item["tn"], program=program)
        changes = []
        if hacked.compromised:
            with character_change(
                character=character, author=author, reason=f"{row.name} compromised (a natural 1)"
            ):
                row.compromised = True
                row.save(update_fields=["compromised"])
            changes.append(f"{row.name} compromised (a natural 1): out for the rest of the mission")
        notes = [n for n, on in (("natural 20", result.crit), ("complication", result.complication)) if on]
        bonus = f"+{result.bonus}" if result.bonus else ""
        summary = (
            f"{item['dice']}d20{bonus} vs TN {item['tn']}: {result.successes} success"
            f"{'es' if result.successes != 1 else ''}, {OUTCOME_LABELS[result.outcome]}"
            + (f" ({', '.join(notes)})" if notes else "")
        )
        return [
            RollResult(
                label=label + (f" with {row.name}" if row is not None else " by specialty"),
                summary=summary,
                dice=tuple(Die(face, sides=rules.DIE) for face in result.faces),
                outcome=result.outcome,
                outcome_label=OUTCOME_LABELS[result.outcome],
                chance=odds.at_least_success,
                changes=tuple(changes),
                character=character,
            )
        ]

    @staticmethod
    def _settle_clash(queue, step, group) -> RollResult:
        # resolution_order wants declaration order; the queue is already reversed.
        turns = [
            rules.Turn(
                str(i),
                highest=max(queue[i]["faces"]) if i in group else None,
                clash="clash" if i in group else None,
            )
            for i in reversed(range(step, len(queue)))
        ]
        queue[step:] = [queue[int(t.label)] for t in rules.resolution_order(turns)]
        order = [row for row in queue[step:] if row["clash"] == queue[step]["clash"] and row["faces"]]
        return RollResult(
            label="Clash",
            summary="Highest single die acts first: "
            + ", then ".join(f"{row['name']} at {row['target_name']} ({max(row['faces'])})" for row in order),
        )

    # ----- the harm protocol -----------------------------------------------------------------------

    def _pending(self, combatant, *, kind: str, levels: int, stage, source: str) -> dict[str, Any]:
        return {
            "target": combatant.pk,
            "target_name": combatant.name,
            "kind": kind,
            "levels": levels,
            "remaining": levels,
            "stage": rules.Stage(stage).value,
            "mitigated": 0,
            "source": source,
        }

    def _hit(self, encounter, item, victim, *, crit: bool) -> list[str]:
        if self.is_out(victim):
            return [f"{victim.name} is already out of the fight"]
        track, current, gear, av = _resources(victim)
        incoming = rules.take_hit(
            dv=item["dv"],
            kind=item["kind"],
            track=track,
            current=current,
            gear=gear,
            av=av,
            piercing=item["piercing"],
            high_impact=item["high_impact"],
            crit=crit,
        )
        dv = f"DV {item['dv']}" + (" doubled by the natural 20" if crit else "")
        armor = f"AV {av}" + (" less 1 (Piercing)" if item["piercing"] and av else "")
        if incoming.levels:
            encounter.state["pending_harm"].append(
                self._pending(
                    victim,
                    kind=item["kind"],
                    levels=incoming.levels,
                    stage=incoming.stage,
                    source=item["name"],
                )
            )
        return [
            f"{victim.name} is hit: {dv} against {armor}: {incoming.levels} level(s) of {item['kind']} harm"
        ]

    def _incoming(self, combatant, pending) -> rules.Incoming:
        track, current, gear, _ = _resources(combatant)
        return rules.Incoming(
            kind=rules.HarmKind(pending["kind"]),
            levels=pending["levels"],
            remaining=pending["remaining"],
            stage=rules.Stage(pending["stage"]),
            track=track,
            current=current,
            gear=gear,
            mitigated=pending["mitigated"],
        )

    def _store(
        self, encounter, combatant, before: rules.Incoming, after: rules.Incoming, author, reason
    ) -> None:
        """Write a harm step to the sheet (through its history) or the quick NPC, and to the pending harm."""
        pending = encounter.state["pending_harm"][0]
        pending.update(remaining=after.remaining, stage=after.stage.value, mitigated=after.mitigated)
        if combatant.character is None:
            combatant.stats = {**combatant.stats, **after.current.as_dict(), "harm": _track_json(after.track)}
            return
        character = combatant.character
        sheet = character.freefall
        with character_change(character=character, author=author, reason=reason):
            fields = []
            for a in rules.Attribute:
                if before.current[a] != after.current[a]:
                    setattr(
                        sheet,
                        f"{a.value}_spent",
                        getattr(sheet, f"{a.value}_spent") + before.current[a] - after.current[a],
                    )
                    fields.append(f"{a.value}_spent")
            for slot, (old, new) in enumerate(
                zip(before.track.slots, after.track.slots, strict=True), start=1
            ):
                if old != new:
                    setattr(sheet, f"harm{slot}_state", new.state.value)
                    setattr(sheet, f"harm{slot}_kind", new.kind.value if new.kind else "")
                    fields += [f"harm{slot}_state", f"harm{slot}_kind"]
            if fields:
                sheet.save(update_fields=fields)
            rows = list(character.ff_gear.order_by("pk"))
            for row, old, new in zip(rows, before.gear, after.gear, strict=True):
                if old.condition != new.condition:
                    row.condition = CONDITION_TO_MODEL[new.condition]
                    row.save(update_fields=["condition"])

    def _mitigate(self, encounter, actor, data, author):
        paid = {a: data.get(a.value) or 0 for a in rules.Attribute}
        points = sum(paid.values())
        pending = encounter.state["pending_harm"][0]
        before = self._incoming(actor, pending)
        after = rules.mitigate(before, spend_from=paid)
        self._store(
            encounter, actor, before, after, author, f"Mitigated {points} harm from {pending['source']}"
        )
        spent = " + ".join(f"{p} {a.label}" for a, p in paid.items() if p) or "nothing"
        changes = [
            f"{actor.name}: "
            + ", ".join(f"{a.label} {before.current[a]} -> {after.current[a]}" for a, p in paid.items() if p)
            + (", " if points else "")
            + f"{after.remaining} level(s) left"
        ]
        lines = [
            RollResult(
                label=f"{actor.name} mitigates",
                summary=f"Spends {spent} against {pending['levels']} level(s) of {pending['kind']} harm.",
                changes=tuple(changes),
                character=actor.character,
                secret=actor.character is None,  # an NPC's numbers are the GM's
            )
        ]
        return lines + self._settle(encounter, actor, author)

    def _take(self, encounter, actor, data, author):
        cleaned = data
        pending = encounter.state["pending_harm"][0]
        before = self._incoming(actor, pending)
        after = rules.resolve(
            before,
            cleaned["option"],
            slot=int(cleaned["slot"]) - 1 if cleaned.get("slot") else None,
            gear=cleaned.get("gear") or None,
        )
        self._store(
            encounter, actor, before, after, author, f"Harm from {pending['source']}: {after.steps[-1]}"
        )
        step = after.steps[-1]
        lines = [
            RollResult(
                label=f"{actor.name} takes harm",
                summary=f"{step[0].upper()}{step[1:]}; {after.remaining} level(s) left.",
                changes=(f"{actor.name}: harm {_slots_text(after.track)}, pool {after.track.pool}",),
                character=actor.character,
                secret=actor.character is None,  # an NPC's numbers are the GM's
            )
        ]
        return lines + self._settle(encounter, actor, author)

    def _settle(self, encounter, actor, author) -> list[RollResult]:
        """Close finished harm; a level nothing can absorb takes the combatant out."""
        lines = []
        queue = encounter.state["pending_harm"]
        while queue and queue[0]["target"] == actor.pk:
            incoming = self._incoming(actor, queue[0])
            if incoming.overwhelmed:
                ended = rules.overwhelm(incoming)
                actor.out = True
                lines.append(
                    RollResult(
                        label=f"{actor.name} is taken out",
                        summary=f"{ended.unabsorbed} level(s) of {incoming.kind.value} harm could not be "
                        "absorbed: out of the fight (the GM rules what that means).",
                        character=actor.character,
                    )
                )
                queue.pop(0)
                # Whatever else was waiting for a combatant who is out no longer matters.
                queue[:] = [p for p in queue if p["target"] != actor.pk]
            elif incoming.stage is rules.Stage.DONE:
                queue.pop(0)
            else:
                break
        return lines

    # ----- the panel -------------------------------------------------------------------------------

    def summary(self, combatant, *, for_gm):
        track, current, _, av = _resources(combatant)
        state = combatant.state
        if combatant.character is None and not for_gm:
            return "out" if combatant.out else ("hurt" if track.filled else "")
        if combatant.character is None:
            stats = combatant.stats
            attributes = " ".join(f"{a.label} {current[a]}/{stats['max'][a.value]}" for a in rules.Attribute)
            text = (
                f"Pool {track.pool} · harm {_slots_text(track)} · {attributes} · AV {av} · DV {stats['dv']}"
            )
        else:
            maximum = sheet_system.state(combatant.character).current_max
            attributes = " ".join(f"{a.label} {current[a]}/{maximum[a]}" for a in rules.Attribute)
            text = f"Pool {track.pool} · harm {_slots_text(track)} · {attributes} · AV {av}"
        if state.get("declaring"):
            text += " · declaring: " + "; ".join(_row_text(r) for r in state["declaring"])
        elif state.get("declared"):
            text += " · declared: " + "; ".join(_row_text(r) for r in state["declared"])
        waiting = combatant.encounter.state.get("pending_harm") or []
        pending = [p for p in waiting if p["target"] == combatant.pk]
        if pending:
            text += f" · taking {pending[0]['remaining']} level(s) of {pending[0]['kind']} harm"
        return text + (" · out" if combatant.out else "")

    def is_out(self, combatant):
        return combatant.out


combat = FreeFallCombat()
