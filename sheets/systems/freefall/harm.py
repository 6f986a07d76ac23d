"""FREE/FALL's harm protocol in a fight: a hit's levels after armor wait in ``encounter.state
["pending_harm"]`` for the one taking them to mitigate and resolve, written to the sheet (through its
history) or the quick NPC.
"""

from __future__ import annotations

from typing import Any

from rules import freefall
from sheets.combat import RollResult, for_players, is_npc
from sheets.services import character_change

from .fighters import (
    CONDITION_TO_MODEL,
    resources_of,
    slots_text,
    track_json,
)


class HarmProtocol:
    """The harm protocol (l.65-100): armor, mitigate, then each level taken as temporary or permanent harm
    or broken gear; a level nothing can absorb takes the combatant out. A mixin of
    ``combat.FreeFallCombat``."""

    # ----- the harm protocol -----------------------------------------------------------------------

    def _pending(self, combatant, *, kind: str, levels: int, stage, source: str) -> dict[str, Any]:
        return {
            "target": combatant.pk,
            "target_name": combatant.name,
            "kind": kind,
            "levels": levels,
            "remaining": levels,
            "stage": freefall.Stage(stage).value,
            "mitigated": 0,
            "source": source,
        }

    def _hit(self, encounter, item, victim, *, crit: bool) -> tuple[list[str], list[str]]:
        """What the hit does, and that as players read it (an NPC's DV and AV are the GM's; a character's
        own harm is not)."""
        if self.is_out(victim):
            already = f"{victim.name} is already out of the fight"
            return [already], [already]
        track, current, gear, av = resources_of(victim)
        incoming = freefall.take_hit(
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
        levels = f"{incoming.levels} level(s) of {item['kind']} harm"
        shown = f"{victim.name} is hit" if is_npc(victim) else f"{victim.name} is hit: {levels}"
        return [f"{victim.name} is hit: {dv} against {armor}: {levels}"], [shown]

    def _incoming(self, combatant, pending) -> freefall.Incoming:
        track, current, gear, _ = resources_of(combatant)
        return freefall.Incoming(
            kind=freefall.HarmKind(pending["kind"]),
            levels=pending["levels"],
            remaining=pending["remaining"],
            stage=freefall.Stage(pending["stage"]),
            track=track,
            current=current,
            gear=gear,
            mitigated=pending["mitigated"],
        )

    def _store(
        self, encounter, combatant, before: freefall.Incoming, after: freefall.Incoming, author, reason
    ) -> None:
        """Write a harm step to the sheet (through its history) or the quick NPC, and to the pending harm."""
        pending = encounter.state["pending_harm"][0]
        pending.update(remaining=after.remaining, stage=after.stage.value, mitigated=after.mitigated)
        if combatant.character is None:
            combatant.stats = {**combatant.stats, **after.current.as_dict(), "harm": track_json(after.track)}
            return
        character = combatant.character
        sheet = character.freefall
        with character_change(character=character, author=author, reason=reason):
            fields = []
            for a in freefall.Attribute:
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
        paid = {a: data.get(a.value) or 0 for a in freefall.Attribute}
        points = sum(paid.values())
        pending = encounter.state["pending_harm"][0]
        before = self._incoming(actor, pending)
        after = freefall.mitigate(before, spend_from=paid)
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
        line = RollResult(
            label=f"{actor.name} mitigates",
            summary=f"Spends {spent} against {pending['levels']} level(s) of {pending['kind']} harm.",
            changes=tuple(changes),
            character=actor.character,
            secret=actor.character is None,  # an NPC's numbers are the GM's
        )
        return [for_players(line) if is_npc(actor) else line] + self._settle(encounter, actor, author)

    def _take(self, encounter, actor, data, author):
        cleaned = data
        pending = encounter.state["pending_harm"][0]
        before = self._incoming(actor, pending)
        after = freefall.resolve(
            before,
            cleaned["option"],
            slot=int(cleaned["slot"]) - 1 if cleaned.get("slot") else None,
            gear=cleaned.get("gear") or None,
        )
        self._store(
            encounter, actor, before, after, author, f"Harm from {pending['source']}: {after.steps[-1]}"
        )
        step = after.steps[-1]
        line = RollResult(
            label=f"{actor.name} takes harm",
            summary=f"{step[0].upper()}{step[1:]}; {after.remaining} level(s) left.",
            changes=(f"{actor.name}: harm {slots_text(after.track)}, pool {after.track.pool}",),
            character=actor.character,
            secret=actor.character is None,  # an NPC's numbers are the GM's
        )
        return [for_players(line) if is_npc(actor) else line] + self._settle(encounter, actor, author)

    def _settle(self, encounter, actor, author) -> list[RollResult]:
        """Close finished harm; a level nothing can absorb takes the combatant out."""
        lines = []
        queue = encounter.state["pending_harm"]
        while queue and queue[0]["target"] == actor.pk:
            incoming = self._incoming(actor, queue[0])
            if incoming.overwhelmed:
                ended = freefall.overwhelm(incoming)
                actor.out = True
                line = RollResult(
                    label=f"{actor.name} is taken out",
                    summary=f"{ended.unabsorbed} level(s) of {incoming.kind.value} harm could not be "
                    "absorbed: out of the fight (the GM rules what that means).",
                    character=actor.character,
                )
                lines.append(for_players(line, "Out of the fight.") if is_npc(actor) else line)
                queue.pop(0)
                # Whatever else was waiting for a combatant who is out no longer matters.
                queue[:] = [p for p in queue if p["target"] != actor.pk]
            elif incoming.stage is freefall.Stage.DONE:
                queue.pop(0)
            else:
                break
        return lines
