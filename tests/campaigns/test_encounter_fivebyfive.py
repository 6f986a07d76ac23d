"""A scripted Five by Five fight through the services, with fixed dice, checking every number."""

import re

import pytest
from django import forms
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from campaigns.models import FeedEntry
from play import encounters as services
from play.models import Combatant
from sheets.combat import EncounterError
from sheets.demo import load_demo_characters
from sheets.history import change_undo, snapshot
from sheets.models import SheetChange
from sheets.systems.fivebyfive import combat as fivebyfive_combat
from sheets.systems.fivebyfive.combat import combat
from sheets.systems.fivebyfive.combatants import FiveByFiveNpcForm, parse_descriptors
from sheets.systems.fivebyfive.models import FiveByFiveSheet

from .encounter import reload, roller

BANDIT = {"descriptors": {"Brute": 6, "Sneaky": 4}, "hp": 12, "weapon_db": 3, "armor_av": -1, "shield": False}


@pytest.fixture
def fight(make_campaign, gm, player, other_player):
    campaign = make_campaign("fivebyfive", players=[player, other_player])
    load_demo_characters(campaign, players=[player, other_player])
    # Larry: Brawler 4 (attack), Uncanny Reflexes 2 (dodge), no steal-initiative descriptor, 12 HP,
    # light weapon DB 2, medium clothes AV -2, one dodge a round.
    larry = campaign.characters.get(name="Larry Booker")
    # Mara: Caravan Guard 4 (attack), Field Medic 4 (healing), Alertness 2 (steal initiative), 16 HP,
    # medium weapon DB 3, heavy clothes AV -3, a shield (two dodges a round).
    mara = campaign.characters.get(name="Mara Quill")
    encounter = services.encounter_create(campaign=campaign, name="Salt Road")
    services.combatant_add_character(encounter=encounter, character=larry)
    services.combatant_add_character(encounter=encounter, character=mara)
    bandit = services.combatant_add_npc(encounter=encounter, name="Bandit", cleaned_data=BANDIT)
    return encounter, larry, mara, bandit


def act(encounter, actor, action, target, data, *faces, gm):
    """The GM's action, the target's dodge included: resolved at once rather than asking its player
    (tests/campaigns/test_defence.py plays the player's own choice)."""
    return services.encounter_act(
        encounter=encounter,
        version=encounter.version,
        actor_id=actor.pk,
        action=action,
        target_id=target.pk if target else None,
        data={f"{action}-{name}": value for name, value in data.items()},  # as the page posts it
        prefix=action,
        roller=roller(*faces),
        author=gm,
        resolve_now=True,
    )


def sheet_numbers(character):
    character.fivebyfive.refresh_from_db()
    return character.fivebyfive.hp, character.fivebyfive.doubles_token


def test_a_short_fivebyfive_fight(fight, gm):
    encounter, larry, mara, bandit = fight
    before = {larry.pk: snapshot(larry), mara.pk: snapshot(mara)}
    assert sheet_numbers(larry) == (12, False) and sheet_numbers(mara) == (16, False)

    # Stealing initiative: Larry has no steal-initiative descriptor, so he rolls untrained (0): 3 x 3 = 9,
    # a failure, but doubles earn him a token. Mara rolls Alertness 2: 1 x 2 = 2 <= 2, she steals it.
    # Order: Mara (stole), the Bandit (GM's side), Larry.
    services.encounter_start(
        encounter=encounter, version=encounter.version, roller=roller(3, 3, 1, 2), author=gm
    )
    encounter, by_name = reload(encounter)
    assert [c.name for c in encounter.combatants.order_by("position")] == [
        "Mara Quill",
        "Bandit",
        "Larry Booker",
    ]
    assert (encounter.round, encounter.turn, encounter.status) == (1, 0, "running")
    assert by_name["Mara Quill"].state["stole"] is True and "stole" not in by_name["Larry Booker"].state
    assert sheet_numbers(larry) == (12, True)
    assert SheetChange.objects.get(character=larry, reason="Steal initiative").after == {
        f"fivebyfivesheet:{larry.fivebyfive.pk}:doubles_token": True
    }
    assert not SheetChange.objects.filter(character=mara).exists()  # nothing changed on her sheet
    larry_try = FeedEntry.objects.get(label__contains="Larry Booker tries to steal")
    assert (
        larry_try.result["outcome"] == "failure"
        and "Larry Booker earns a doubles token" in larry_try.result["changes"]
    )
    assert FeedEntry.objects.get(label__endswith="Turn order").summary == "Mara Quill, Bandit, Larry Booker"

    # Round 1, Mara attacks the Bandit with Caravan Guard 4 (automatic): 2 x 2 = 4 <= 4, a hit, and
    # doubles earn her a token. The Bandit dodges with its best, Brute 6: 3 x 4 = 12 > 6, too slow.
    # Damage: 6 (trump, +5) then 3: 3 + 5 + DB 3 + AV -1 = 10. The Bandit: HP 12 -> 2.
    act(encounter, by_name["Mara Quill"], "attack", bandit, {"dodge": "on"}, 2, 2, 3, 4, 6, 3, gm=gm)
    encounter, by_name = reload(encounter)
    assert by_name["Bandit"].stats["hp"] == 2 and not by_name["Bandit"].out
    assert by_name["Bandit"].state["dodges"] == 1
    assert sheet_numbers(mara) == (16, True)
    damage = FeedEntry.objects.get(label__contains="Mara Quill damages Bandit")
    assert damage.result["total"] == 10 and damage.summary == "3 + 5 (1 trump) + DB 3 + AV -1 = 10 damage"
    assert "Bandit: HP 12 -> 2" in damage.result["changes"]
    assert SheetChange.objects.get(character=mara).reason == "Attack on Bandit"
    # One action a turn.
    with pytest.raises(EncounterError, match="not open"):
        act(encounter, by_name["Mara Quill"], "attack", bandit, {}, gm=gm)
    encounter.refresh_from_db()

    # The Bandit attacks Larry with Brute 6: 2 x 3 = 6 <= 6, a hit. Larry dodges with Uncanny
    # Reflexes 2 and spends his token: 5 x 1, and the 5 trumps with a token: dodged.
    services.encounter_next_turn(encounter=encounter, version=encounter.version, author=gm)
    encounter, by_name = reload(encounter)
    act(
        encounter,
        by_name["Bandit"],
        "attack",
        by_name["Larry Booker"],
        {"dodge": "on", "dodge_token": "on"},
        2,
        3,
        5,
        1,
        gm=gm,
    )
    encounter, by_name = reload(encounter)
    assert sheet_numbers(larry) == (12, False)
    assert by_name["Larry Booker"].state["dodges"] == 1
    dodged = FeedEntry.objects.get(label__contains="Larry Booker dodges")
    assert (
        dodged.result["outcome"] == "trump"
        and "Larry Booker spends a doubles token" in dodged.result["changes"]
    )
    assert SheetChange.objects.filter(character=larry).latest("pk").reason == "Dodged Bandit's attack"
    assert not FeedEntry.objects.filter(label__contains="Bandit damages").exists()

    # Larry attacks the Bandit with Brawler 4: 1 x 4 = 4, a hit. The Bandit used its one dodge this
    # round, so ticking "dodges" goes ahead without one. Damage 2 + DB 2 + AV -1 = 3: HP 2 -> -1, dying.
    services.encounter_next_turn(encounter=encounter, version=encounter.version, author=gm)
    encounter, by_name = reload(encounter)
    act(encounter, by_name["Larry Booker"], "attack", bandit, {"dodge": "on"}, 1, 4, 2, gm=gm)
    encounter, by_name = reload(encounter)
    assert by_name["Bandit"].stats["hp"] == -1 and by_name["Bandit"].out
    hit = FeedEntry.objects.get(label__contains="Larry Booker attacks Bandit")
    assert "Bandit has no dodge left this round" in hit.result["changes"]
    assert (
        "Bandit is dying" in FeedEntry.objects.get(label__contains="Larry Booker damages").result["changes"]
    )

    # Round 2: the Bandit is out, so the order runs Mara, (Bandit skipped), Larry. Dodges come back.
    services.encounter_next_turn(encounter=encounter, version=encounter.version, author=gm)
    encounter, by_name = reload(encounter)
    assert (encounter.round, encounter.turn) == (2, 0)
    assert by_name["Larry Booker"].state["dodges"] == 0

    # Mara has nobody wounded to heal on her side, and the Bandit is dying but still a target. She attacks
    # it, spending her token on the damage: 1 x 3 = 3, a hit (no dodge: it is down). Damage 5 then 2: the
    # 5 trumps with a token: 2 + 5 + DB 3 + AV -1 = 9: HP -1 -> -10, dead.
    assert [t.name for t in services_actions(encounter, "Mara Quill", "heal")] == []
    act(
        encounter,
        by_name["Mara Quill"],
        "attack",
        bandit,
        {"dodge": "on", "spend": "damage"},
        1,
        3,
        5,
        2,
        gm=gm,
    )
    encounter, by_name = reload(encounter)
    assert by_name["Bandit"].stats["hp"] == -10
    assert sheet_numbers(mara) == (16, False)
    assert FeedEntry.objects.filter(label__contains="Mara Quill damages").latest("pk").result["changes"] == [
        "Mara Quill spends a doubles token",
        "Bandit: HP -1 -> -10",
        "Bandit is dead",
    ]
    # The dead are no longer targets.
    assert services_actions(encounter, "Mara Quill", "attack") == []

    # Larry's turn (the Bandit is skipped); then round 3 comes back to Mara.
    services.encounter_next_turn(encounter=encounter, version=encounter.version, author=gm)
    encounter, by_name = reload(encounter)
    assert (encounter.round, encounter.turn) == (2, 2)
    services.encounter_next_turn(encounter=encounter, version=encounter.version, author=gm)
    encounter, by_name = reload(encounter)
    assert (encounter.round, encounter.turn) == (3, 0)

    # Every change to either sheet is traced, and undoing them in reverse restores both sheets exactly.
    for change in SheetChange.objects.filter(character__in=[larry, mara]).order_by("-pk"):
        change_undo(change=change, author=gm)
    larry.refresh_from_db()
    mara.refresh_from_db()
    assert snapshot(larry) == before[larry.pk] and snapshot(mara) == before[mara.pk]


def services_actions(encounter, actor_name, key):
    """The targets the running encounter offers ``actor_name`` for action ``key``."""
    from sheets.registry import combat_for as rules_for

    combatants = services.combatants_of(encounter)
    actor = next(c for c in combatants if c.name == actor_name)
    for action in rules_for(encounter.campaign).actions(encounter, actor, combatants):
        if action.key == key:
            return list(action.targets)
    return []


@pytest.fixture
def two_bandits(fight):
    encounter, larry, mara, bandit = fight
    services.combatant_add_npc(encounter=encounter, name="Cutthroat", cleaned_data={**BANDIT, "hp": 8})
    return fight


def play_rows(encounter) -> dict:
    return {c.pk: c.play_columns() for c in Combatant.objects.filter(encounter=encounter)}


def test_an_action_writes_back_only_the_combatants_it_changed(two_bandits, gm):
    """A hit touches the attacker and its target; the rest of the fight's rows are neither checked nor
    written again (play.encounters._save), and what changed is stored. Its lines are saved together."""
    encounter, larry, mara, bandit = two_bandits
    # Mara steals initiative as in the short fight (Larry 3 x 3 fails, Mara 1 x 2 <= 2): she goes first.
    services.encounter_start(
        encounter=encounter, version=encounter.version, roller=roller(3, 3, 1, 2), author=gm
    )
    encounter, by_name = reload(encounter)
    before, lines_before = play_rows(encounter), FeedEntry.objects.count()
    with CaptureQueriesContext(connection) as queries:
        # As in the short fight: a hit on the Bandit, its dodge too slow, 10 damage.
        act(encounter, by_name["Mara Quill"], "attack", bandit, {"dodge": "on"}, 2, 2, 3, 4, 6, 3, gm=gm)
    after = play_rows(encounter)
    update = re.compile(r'UPDATE "play_combatant" .* WHERE (?:"play_combatant".)?"id" = (\d+)')
    written = {int(match[1]) for query in queries.captured_queries if (match := update.search(query["sql"]))}
    changed = {pk for pk in before if before[pk] != after[pk]}
    assert bandit.pk in changed and after[bandit.pk] != before[bandit.pk]
    assert written == changed
    assert {by_name["Larry Booker"].pk, by_name["Cutthroat"].pk}.isdisjoint(written)
    bandit.refresh_from_db()
    assert bandit.stats["hp"] == 2 and bandit.state["dodges"] == 1
    # The move's lines (to hit, the dodge, the damage) go to the feed in one insert (feed_lines_create).
    inserts = [q for q in queries.captured_queries if q["sql"].startswith('INSERT INTO "campaigns_feedentry')]
    assert len(inserts) == 1 and FeedEntry.objects.count() - lines_before >= 2


def test_an_action_makes_only_the_form_it_takes(two_bandits, gm, monkeypatch):
    """Mara's turn offers Attack and Heal; her attack makes the attack's form alone (sheets.combat.Action's
    form_class, made on read): the heal's form, never read, is never made. Drawn for the turn panel, it is
    made once, however often it is read."""
    encounter, larry, mara, bandit = two_bandits
    services.encounter_start(
        encounter=encounter, version=encounter.version, roller=roller(3, 3, 1, 2), author=gm
    )
    encounter, by_name = reload(encounter)
    made = []
    heal_form_class = fivebyfive_combat.heal_form_class
    monkeypatch.setattr(
        fivebyfive_combat,
        "heal_form_class",
        lambda actor, **options: made.append(actor.name) or heal_form_class(actor, **options),
    )
    fighters = list(by_name.values())
    offered = {
        a.key: a
        for a in services.actions_open_to(combat, encounter, by_name["Mara Quill"], fighters, by_gm=True)
    }
    assert issubclass(offered["attack"].form_class, forms.Form) and made == []
    assert offered["heal"].form_class is offered["heal"].form_class
    assert made == ["Mara Quill"]

    made.clear()
    act(encounter, by_name["Mara Quill"], "attack", bandit, {"dodge": "on"}, 2, 2, 3, 4, 6, 3, gm=gm)
    assert made == []
    bandit.refresh_from_db()
    assert bandit.stats["hp"] == 2  # the attack itself was played in full


def test_pc_hurt_healed_and_harmed_with_the_gm_token(two_bandits, gm):
    encounter, larry, mara, bandit = two_bandits
    before = {larry.pk: snapshot(larry), mara.pk: snapshot(mara)}
    # Nobody steals initiative (Larry untrained 2 x 3, Mara Alertness 2 x 4): GM's side first.
    services.encounter_start(
        encounter=encounter, version=encounter.version, roller=roller(2, 3, 2, 4), author=gm
    )
    encounter, by_name = reload(encounter)
    assert [c.name for c in encounter.combatants.order_by("position")] == [
        "Bandit",
        "Cutthroat",
        "Larry Booker",
        "Mara Quill",
    ]
    # The Bandit attacks Larry, who holds no token to dodge with: refused, nothing rolled or saved.
    with pytest.raises(EncounterError, match="Larry Booker holds no doubles token"):
        act(
            encounter,
            by_name["Bandit"],
            "attack",
            by_name["Larry Booker"],
            {"dodge": "on", "dodge_token": "on"},
            gm=gm,
        )
    encounter.refresh_from_db()
    # Sneaky 4 picked: 1 x 1 = 1, a hit, and doubles give the GM its token. Larry dodges (Uncanny
    # Reflexes 2): 2 x 2 = 4 > 2, too slow, but his doubles earn him one. Damage 4 + DB 3 + AV -2 = 5:
    # Larry HP 12 -> 7.
    act(
        encounter,
        by_name["Bandit"],
        "attack",
        by_name["Larry Booker"],
        {"descriptor": "Sneaky", "dodge": "on"},
        1,
        1,
        2,
        2,
        4,
        gm=gm,
    )
    encounter, by_name = reload(encounter)
    assert encounter.state["gm_token"] is True
    assert sheet_numbers(larry) == (7, True)
    change = SheetChange.objects.filter(character=larry).latest("pk")
    assert change.reason == "5 damage from Bandit"
    assert sorted(change.after.values()) == [True, 7]
    # The Cutthroat spends the GM's token on the hit: 5 x 4, the 5 trumps. Larry already dodged this
    # round (one dodge a round): no dodge. Damage 6, 6, 1: 1 + 10 + DB 3 + AV -2 = 12: 7 -> -5, dying.
    services.encounter_next_turn(encounter=encounter, version=encounter.version, author=gm)
    encounter, by_name = reload(encounter)
    act(
        encounter,
        by_name["Cutthroat"],
        "attack",
        by_name["Larry Booker"],
        {"dodge": "on", "spend": "hit"},
        5,
        4,
        6,
        6,
        1,
        gm=gm,
    )
    encounter, by_name = reload(encounter)
    assert encounter.state["gm_token"] is False
    assert sheet_numbers(larry) == (-5, True)
    assert by_name["Larry Booker"].out
    # Larry is dying, so his turn is skipped: next is Mara. She heals him with Field Medic 4 (automatic),
    # spending nothing: 3 x 2 = 6 > 4, a failure: the harming die shows 6 (trump, +2) then 4 (2): 4 HP lost,
    # -5 -> -9.
    services.encounter_next_turn(encounter=encounter, version=encounter.version, author=gm)
    encounter, by_name = reload(encounter)
    assert encounter.turn == 3
    assert [t.name for t in services_actions(encounter, "Mara Quill", "heal")] == ["Larry Booker"]
    act(encounter, by_name["Mara Quill"], "heal", by_name["Larry Booker"], {}, 3, 2, 6, 4, gm=gm)
    assert sheet_numbers(larry) == (-9, True)
    assert (
        SheetChange.objects.filter(character=larry).latest("pk").reason
        == "Harmed by Mara Quill's failed heal"
    )
    # Round 2, the bandits pass; Mara heals again, 1 x 4 = 4, success; the healing die 6 then 3 = 8:
    # -9 -> -1, still dying.
    for _ in range(3):
        services.encounter_next_turn(encounter=encounter, version=encounter.version, author=gm)
        encounter.refresh_from_db()
    encounter, by_name = reload(encounter)
    assert (encounter.round, encounter.turn) == (2, 3)
    act(encounter, by_name["Mara Quill"], "heal", by_name["Larry Booker"], {}, 1, 4, 6, 3, gm=gm)
    assert sheet_numbers(larry) == (-1, True)
    assert FeedEntry.objects.get(
        label__contains="Mara Quill heals Larry", summary__contains="die"
    ).summary == ("Healing die 6, 3 (1 trump): heals 8 HP")

    for change in SheetChange.objects.filter(character__in=[larry, mara]).order_by("-pk"):
        change_undo(change=change, author=gm)
    larry.refresh_from_db()
    mara.refresh_from_db()
    assert snapshot(larry) == before[larry.pk] and snapshot(mara) == before[mara.pk]


def test_the_gm_may_let_players_steal_with_their_best(fight, gm):
    """Five by Five l.534-539: a descriptor improves one exclusive action only, so "their best" leaves out
    those tied to another action."""
    encounter, larry, mara, bandit = fight
    # Larry's best is Street Smarts 6: 2 x 3 = 6, steals it. Mara's Caravan Guard 4 and Field Medic 4 are
    # her attack and healing descriptors, so her best here is Alertness 2: 1 x 4 = 4, she does not.
    services.encounter_start(
        encounter=encounter,
        version=encounter.version,
        roller=roller(2, 3, 1, 4),
        author=gm,
        data={"steal_with": "best"},
    )
    encounter, _ = reload(encounter)
    assert [c.name for c in encounter.combatants.order_by("position")] == [
        "Larry Booker",
        "Bandit",
        "Mara Quill",
    ]
    assert FeedEntry.objects.get(label__contains="Larry Booker tries").summary == (
        "Street Smarts 6: 2 × 3 = 6 vs 6, steals it"
    )
    assert FeedEntry.objects.get(label__contains="Mara Quill tries").summary == (
        "Alertness 2: 1 × 4 = 4 vs 2, acts after the GM's side"
    )


def test_parse_quick_npc_descriptors():
    assert parse_descriptors("Brute 6, Sneaky 4") == {"Brute": 6, "Sneaky": 4}
    assert parse_descriptors(" Old  Soldier 9 ,Coward -5,") == {"Old Soldier": 9, "Coward": -5}
    for bad, message in [
        ("Brute 7", "not on the ladder"),
        ("Brute", "write a name then a value"),
        ("Brute 6, brute 4", "listed twice"),
        ("", "at least one"),
    ]:
        with pytest.raises(forms.ValidationError, match=message):
            parse_descriptors(bad)
    form = FiveByFiveNpcForm(
        {"descriptors": "Brute 6", "hp": "9", "weapon_db": "4", "armor_av": "-5", "shield": "on"}
    )
    assert form.is_valid(), form.errors
    assert form.cleaned_data["descriptors"] == {"Brute": 6} and form.cleaned_data["armor_av"] == -5
    # HP in another script's digits ("٣" reads as 3 to int()) or past an armor's table is refused.
    for bad in ({"hp": "٣"}, {"hp": "²"}, {"armor_av": "-7"}):
        data = {"descriptors": "Brute 6", "hp": "9", "weapon_db": "4", "armor_av": "-5", **bad}
        assert not FiveByFiveNpcForm(data).is_valid(), bad


def test_the_gm_page_runs_the_fight(fight, gm, player, client_for):
    encounter, larry, mara, bandit = fight
    gm_client = client_for(gm)
    url = reverse("encounter_action", args=[encounter.campaign_id, encounter.pk, "add-npc"])
    gm_client.post(
        url,
        {
            "version": encounter.version,
            "name": "Wolf",
            "npc-descriptors": "Bite 4, Pounce 6",
            "npc-hp": "8",
            "npc-weapon_db": "1",
            "npc-armor_av": "0",
        },
    )
    wolf = encounter.combatants.get(name="Wolf")
    assert wolf.stats == {
        "descriptors": {"Bite": 4, "Pounce": 6},
        "hp": 8,
        "hp_max": 8,
        "db": 1,
        "av": 0,
        "shield": False,
    }
    assert "Players steal initiative with" in gm_client.get(encounter.get_absolute_url()).content.decode()
    services.encounter_start(
        encounter=encounter, version=encounter.version, roller=roller(2, 3, 1, 2), author=gm
    )
    page = gm_client.get(encounter.get_absolute_url()).content.decode()
    assert "Players steal initiative with" not in page  # only while setting up
    assert re.search(r"Mara Quill(</bdi>)?(&#x27;|')s turn", page)
    assert 'name="attack-dodge_with"' in page and "Bandit: Brute 6 (auto)" in page
    assert "HP 12/12 · healthy · Brute 6, Sneaky 4 · DB 3 · AV -1" in page
    # A player sees the panel without the NPC's numbers.
    panel = client_for(player).get(reverse("encounter_panel", args=[encounter.campaign_id])).content.decode()
    assert "Bandit" in panel and "Brute 6" not in panel
    # The attack posted from the page goes through, prefixed by the action key.
    encounter.refresh_from_db()
    act_url = reverse("encounter_action", args=[encounter.campaign_id, encounter.pk, "act"])
    actor = encounter.combatants.get(name="Mara Quill")
    response = gm_client.post(
        act_url,
        {
            "version": encounter.version,
            "actor": actor.pk,
            "action": "attack",
            "target": bandit.pk,
            "attack-descriptor": "",
            "attack-dodge_with": f"{bandit.pk}:Sneaky",
        },
    )
    assert response.status_code == 302
    assert FeedEntry.objects.filter(label__contains="Mara Quill attacks Bandit").exists()


def start_with_mara_first(encounter, gm):
    # Larry untrained 3 x 3 = 9 fails; Mara's Alertness 2: 1 x 2 = 2 steals it. Order: Mara, Bandit, Larry.
    services.encounter_start(
        encounter=encounter, version=encounter.version, roller=roller(3, 3, 1, 2), author=gm
    )
    return reload(encounter)


def test_a_descriptor_tied_to_one_exclusive_action_cannot_serve_another(fight, gm):
    """Five by Five l.534-553: "A Descriptor cannot be defined that improves the ability of more than one
    Exclusive Action": Mara's healing descriptor cannot make her attack, nor her attack one heal."""
    _, larry, mara, bandit = fight
    FiveByFiveSheet.objects.filter(character=larry).update(hp=8)  # someone to heal
    encounter, by_name = start_with_mara_first(fight[0], gm)
    medic = mara.descriptors.get(name="Field Medic")
    guard = mara.descriptors.get(name="Caravan Guard")
    maps = mara.descriptors.get(name="Reading Maps")
    actions = {a.key: a for a in combat.actions(encounter, by_name["Mara Quill"], list(by_name.values()))}
    offered = dict(actions["attack"].form_class().fields["descriptor"].choices)
    assert str(guard.pk) in offered and str(maps.pk) in offered and str(medic.pk) not in offered
    heal_offered = dict(actions["heal"].form_class().fields["descriptor"].choices)
    assert str(medic.pk) in heal_offered and str(guard.pk) not in heal_offered
    before = (encounter.version, FeedEntry.objects.count(), snapshot(mara))
    with pytest.raises(EncounterError, match="To hit with"):
        act(encounter, by_name["Mara Quill"], "attack", bandit, {"descriptor": str(medic.pk)}, 6, 6, 3, gm=gm)
    encounter.refresh_from_db()
    with pytest.raises(EncounterError, match="Heal with"):
        act(
            encounter,
            by_name["Mara Quill"],
            "heal",
            by_name["Larry Booker"],
            {"descriptor": str(guard.pk)},
            1,
            1,
            3,
            gm=gm,
        )
    encounter.refresh_from_db()
    assert (encounter.version, FeedEntry.objects.count(), snapshot(mara)) == before
    # An untied descriptor serves any action: Reading Maps -5 rolls one die, 6 is a trump, a hit.
    act(encounter, by_name["Mara Quill"], "attack", bandit, {"descriptor": str(maps.pk)}, 6, 2, gm=gm)
    assert FeedEntry.objects.get(label__contains="Mara Quill attacks Bandit").summary.startswith(
        "Reading Maps -5: 6"
    )


def test_a_fight_shifts_each_action_by_the_aspect_it_is_based_on(fight, gm, client_for):
    """Five by Five l.715-750: every action is based on one of the four aspects, and a Superior or Inferior
    one shifts it a rank; stealing initiative is read as based on Cognition, attacks on Agility unless
    the GM names another."""
    encounter, larry, mara, bandit = fight
    encounter.campaign.options = {"fbf_aspects": True}
    encounter.campaign.save()
    FiveByFiveSheet.objects.filter(character=mara).update(agility=1, cognition=-1)
    # Mara's Alertness 2 takes Inferior Cognition: untrained 0, so 1 x 2 = 2 no longer steals it.
    services.encounter_start(
        encounter=encounter, version=encounter.version, roller=roller(3, 3, 1, 2), author=gm
    )
    encounter, by_name = reload(encounter)
    assert [c.name for c in encounter.combatants.order_by("position")] == [
        "Bandit",
        "Larry Booker",
        "Mara Quill",
    ]
    assert FeedEntry.objects.get(label__contains="Mara Quill tries to steal initiative").summary == (
        "Alertness 2 (shift -1): 1 × 2 = 2 vs 0, acts after the GM's side"
    )
    for _ in range(2):
        services.encounter_next_turn(encounter=encounter, version=encounter.version, author=gm)
        encounter.refresh_from_db()
    encounter, by_name = reload(encounter)
    form = combat.actions(encounter, by_name["Mara Quill"], list(by_name.values()))[0].form_class()
    assert form.fields["aspect"].initial == "agility"
    page = (
        client_for(gm).get(reverse("encounter", args=[encounter.campaign_id, encounter.pk])).content.decode()
    )
    assert "Attack based on aspect" in page
    # Nobody is hurt yet, so the page draws no heal (it has no target); its form names the aspect too.
    heal = combat.actions(encounter, by_name["Mara Quill"], list(by_name.values()))[1].form_class()
    assert (
        heal.fields["aspect"].label == "Healing based on aspect"
        and heal.fields["aspect"].initial == "cognition"
    )
    # Caravan Guard 4 on Superior Agility is 6: 2 x 3 = 6 hits. Damage 3 + DB 3 + AV -1 = 5: 12 -> 7.
    act(encounter, by_name["Mara Quill"], "attack", bandit, {"aspect": "agility"}, 2, 3, 3, gm=gm)
    assert FeedEntry.objects.get(label__contains="Mara Quill attacks Bandit").summary == (
        "Caravan Guard 4 (shift +1): 2 × 3 = 6 vs 6, hit"
    )
    encounter, by_name = reload(encounter)
    assert by_name["Bandit"].stats["hp"] == 7


def test_rule_a_hit_the_armour_takes_whole_says_0_damage(fight, gm):
    """Five by Five l.412-413: "Damage = 1d6 + DB of Attacking Weapon - AV of Defending Armor" (never below
    0): a hit whose damage the armour takes whole says "0 damage" to everyone, in the GM's line and in the
    players' words, rather than an HP line that does not move."""
    encounter, larry, mara, bandit = fight
    fists = services.combatant_add_npc(
        encounter=encounter, name="Brawler", cleaned_data={**BANDIT, "weapon_db": 0}
    )
    services.encounter_start(
        encounter=encounter, version=encounter.version, roller=roller(3, 3, 1, 2), author=gm
    )
    encounter, by_name = reload(encounter)
    while services.current_actor(encounter, services.combatants_of(encounter)).pk != fists.pk:
        services.encounter_next_turn(encounter=encounter, version=encounter.version, author=gm)
        encounter.refresh_from_db()
    # Brute 6: 1 x 2 = 2, a hit; Larry does not dodge. Damage 1 + DB 0 + AV -2 = -1: 0 damage.
    act(encounter, by_name["Brawler"], "attack", by_name["Larry Booker"], {}, 1, 2, 1, gm=gm)
    line = FeedEntry.objects.get(label__endswith="Brawler damages Larry Booker")
    assert line.summary == "1 + DB 0 + AV -2 = 0 damage"
    assert "Larry Booker's armour absorbs the hit: 0 damage" in line.result["changes"]
    players = line.result["players"]  # the Brawler's DB is the GM's: the players read words
    assert players["summary"] == "0 damage"
    assert "Larry Booker's armour absorbs the hit: 0 damage" in players["changes"]
    assert sheet_numbers(larry)[0] == 12
