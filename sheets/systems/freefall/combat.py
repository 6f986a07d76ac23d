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
  step (no armor, no mitigation). The prerequisite a character claims is the player's choice and the
  GM's to judge: every declared action says it where the GM reads it (panel and declaration line).
- The TN tier (l.29-35) is the GM's: a player's forms have none (``Action.gm_fields``) and take the
  tier the GM set on the start button for the scene; the GM's own forms start at it.
- A newcomer joins last in the declaration order: while declarations are being made it declares last
  this round; after them it waits for the next round (``join``).
- A quick NPC's declarations, mitigation and harm slots are logged for the GM only (its numbers are the
  GM's); the rolls and the hits are public, an NPC's pool, DV and AV in the GM's text only
  (``sheets.combat.for_players``).
- When no option can absorb a level (all slots permanent, no unbroken bound gear), the combatant is
  taken out and the levels left are recorded; what that means (dying, captured) is the GM's call.

By concern: ``fighters.py`` (what a combatant has, the forms), ``declaring.py`` (phases 1-2),
``harm.py`` (the harm protocol); this module the round, the rolls and the panel.
"""

from __future__ import annotations

from rules import freefall
from sheets.combat import Action, CombatRules, RollResult, for_players, is_npc
from sheets.services import character_change

from .declaring import Declarations
from .fields import engine_program, programs_of
from .fighters import (
    DECLARE,
    RESOLVE,
    FreeFallNpcForm,
    FreeFallStartForm,
    declaration_seats,
    mitigate_form,
    resolve_form,
    resources_of,
    row_text,
    slots_text,
    track_json,
)
from .harm import HarmProtocol
from .rolls import OUTCOME_LABELS, check_dice
from .sheet import system as sheet_system


class FreeFallCombat(Declarations, HarmProtocol, CombatRules):
    key = "freefall"
    npc_form_class = FreeFallNpcForm
    start_form_class = FreeFallStartForm

    def npc_stats(self, cleaned_data):
        attributes = {a.value: cleaned_data[a.value] for a in freefall.Attribute}
        return {
            **attributes,
            "max": attributes,
            "av": cleaned_data["av"],
            "dv": cleaned_data["dv"],
            "harm": track_json(freefall.HarmTrack()),
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

    def join(self, encounter, combatant, combatants, roller):
        """A newcomer arrives mid-round. The order is the declaration order (l.9, l.51), so it comes in
        last: while declarations are still being made it declares last (and so resolves first); once
        they are done it has declared nothing and waits for the next round's declarations."""
        combatant.state = {}
        if encounter.state.get("phase") == DECLARE:
            encounter.state = {**encounter.state, "seats": encounter.state["seats"] + 1}
            when = "declares last this round (and so resolves first)"
        else:
            when = "arrived after the declarations: declares from the next round"
        line = RollResult(
            label=f"{combatant.name} joins",
            summary=f"{combatant.name} joins the fight, last in the declaration order: {when}.",
            character=combatant.character,
        )
        return [line]

    def sample_npc(self):
        return {"body": 3, "mind": 2, "ghost": 2, "av": 1, "dv": 5}  # a ganger with a knife and a vest

    def _round_line(self, encounter, combatants) -> RollResult:
        listed = [c for c in combatants if c.character and not c.out]
        pools = ", ".join(f"{c.name} {resources_of(c)[0].pool}d20" for c in listed)
        line = RollResult(
            label=f"Round {encounter.round}: declare", summary=f"Everyone declares. Pools: {pools}."
        )
        if any(is_npc(c) for c in listed):  # an NPC's pool is the GM's
            shown = ", ".join(f"{c.name} {resources_of(c)[0].pool}d20" for c in listed if not is_npc(c))
            line = for_players(line, f"Everyone declares. Pools: {shown}.")
        return line

    def current_actor(self, encounter, combatants):
        by_pk = {c.pk: c for c in combatants}
        pending = encounter.state.get("pending_harm") or []
        if pending and pending[0]["target"] in by_pk:
            return by_pk[pending[0]["target"]]  # the one taking the harm chooses how
        step = encounter.turn - declaration_seats(encounter, combatants)
        queue = encounter.state.get("queue") or []
        if 0 <= step < len(queue) and queue[step]["by"] in by_pk:
            return by_pk[queue[step]["by"]]
        return combatants[encounter.turn % len(combatants)]

    def turns_in_round(self, encounter, combatants):
        return declaration_seats(encounter, combatants) + len(encounter.state.get("queue") or [])

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
            if harm["stage"] == freefall.Stage.MITIGATE:
                current = resources_of(actor)[1]
                return [
                    Action(
                        "mitigate",
                        f"Mitigate {what}",
                        form_class=mitigate_form(current, harm["remaining"]),
                        help="Spend current attribute points, one per level negated, from any attribute; "
                        "all 0 keeps them all.",
                    )
                ]
            incoming = self._incoming(actor, harm)
            return [
                Action(
                    "resolve",
                    f"Take a level of {what}",
                    form_class=resolve_form(actor, incoming.options, incoming.track),
                    help="One level at a time. With every slot holding temporary harm, only permanent harm "
                    "or breaking bound gear is left.",
                )
            ]
        if encounter.turn < declaration_seats(encounter, combatants):
            return self._declaring_actions(encounter, actor, combatants)
        step = encounter.turn - declaration_seats(encounter, combatants)
        item = encounter.state["queue"][step]
        target = next((c for c in combatants if c.pk == item["target"]), None)
        clash = item["clash"] and item["faces"] is None
        return [
            Action(
                "roll",
                ("Roll the clash: " if clash else "Roll: ") + row_text(item),
                needs_target=target is not None,
                targets=(target,) if target is not None else (),
                help="Clashing actions are rolled together; the highest single die acts first."
                if clash
                else "",
                own_odds=True,  # its dice against its TN: nothing of the target's
            )
        ]

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
            tn = freefall.Difficulty(data["difficulty"]).tn
            if action == "hack":
                programs = programs_of(actor.character)
                program = next((p for p in programs if p.name == data.get("program")), None)
                return freefall.hack_odds(data["dice"], tn, program=program).at_least_success
            return freefall.odds(data["dice"], tn).at_least_success
        if action != "roll":
            return None
        item = encounter.state["queue"][encounter.turn - encounter.state["seats"]]
        if item.get("hack"):
            row = actor.character.ff_programs.filter(name=item["program"]).first()
            program = engine_program(row) if row is not None and not row.compromised else None
            return freefall.hack_odds(item["dice"], item["tn"], program=program).at_least_success
        return freefall.odds(item["dice"], item["tn"]).at_least_success

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
                queue[i]["faces"] = roller.dice(queue[i]["dice"], freefall.DIE)
            if len(group) > 1:
                lines.append(self._settle_clash(queue, step, group))
        item = queue[step]
        by = {actor.pk: actor, **({target.pk: target} if target is not None else {})}
        attacker, victim = by[item["by"]], by.get(item["target"]) if item["target"] is not None else None
        if item.get("hack"):
            return lines + self._hack(item, attacker, author)
        result = freefall.check(item["faces"], item["tn"])
        odds = freefall.odds(item["dice"], item["tn"])
        notes = [n for n, on in (("natural 20", result.crit), ("complication", result.complication)) if on]
        changes = []
        shown = list(changes)
        if victim is not None and result.successes:
            hit, shown_hit = self._hit(encounter, item, victim, crit=result.crit)
            changes += hit
            shown += shown_hit
        summary = (
            f"{item['dice']}d20 vs TN {item['tn']}: {result.successes} success"
            f"{'es' if result.successes != 1 else ''}, {OUTCOME_LABELS[result.outcome]}"
            + (f" ({', '.join(notes)})" if notes else "")
        )
        line = RollResult(
            label=f"{attacker.name}: {item['name']}" + (f" at {victim.name}" if victim else ""),
            summary=summary,
            dice=check_dice(result),
            outcome=result.outcome,
            outcome_label=OUTCOME_LABELS[result.outcome],
            chance=odds.at_least_success,
            changes=tuple(changes),
            character=attacker.character,
        )
        if is_npc(attacker) or (victim is not None and is_npc(victim)):  # an NPC's pool, DV or AV
            line = for_players(line, "", shown)
        lines.append(line)
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
        program = engine_program(row) if row is not None else None
        hacked = freefall.hack(item["faces"], item["tn"], program=program)
        result = hacked.check
        odds = freefall.hack_odds(item["dice"], item["tn"], program=program)
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
                dice=check_dice(result),
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
            freefall.Turn(
                str(i),
                highest=max(queue[i]["faces"]) if i in group else None,
                clash="clash" if i in group else None,
            )
            for i in reversed(range(step, len(queue)))
        ]
        queue[step:] = [queue[int(t.label)] for t in freefall.resolution_order(turns)]
        order = [row for row in queue[step:] if row["clash"] == queue[step]["clash"] and row["faces"]]
        return RollResult(
            label="Clash",
            summary="Highest single die acts first: "
            + ", then ".join(f"{row['name']} at {row['target_name']} ({max(row['faces'])})" for row in order),
        )

    # ----- the panel -------------------------------------------------------------------------------

    def summary(self, combatant, *, for_gm):
        track, current, _, av = resources_of(combatant)
        state = combatant.state
        if not for_gm:
            return "out" if combatant.out else ("hurt" if track.filled else "")
        if combatant.character is None:
            stats = combatant.stats
            attributes = " ".join(
                f"{a.label} {current[a]}/{stats['max'][a.value]}" for a in freefall.Attribute
            )
            text = f"Pool {track.pool} · harm {slots_text(track)} · {attributes} · AV {av} · DV {stats['dv']}"
        else:
            maximum = sheet_system.state(combatant.character).current_max
            attributes = " ".join(f"{a.label} {current[a]}/{maximum[a]}" for a in freefall.Attribute)
            text = f"Pool {track.pool} · harm {slots_text(track)} · {attributes} · AV {av}"
        if state.get("declaring"):
            text += " · declaring: " + "; ".join(row_text(r) for r in state["declaring"])
        elif state.get("declared"):
            text += " · declared: " + "; ".join(row_text(r) for r in state["declared"])
        waiting = combatant.encounter.state.get("pending_harm") or []
        pending = [p for p in waiting if p["target"] == combatant.pk]
        if pending:
            text += f" · taking {pending[0]['remaining']} level(s) of {pending[0]['kind']} harm"
        return text + (" · out" if combatant.out else "")

    def is_out(self, combatant):
        return combatant.out


combat = FreeFallCombat()
