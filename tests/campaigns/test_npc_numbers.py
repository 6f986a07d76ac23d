"""NPC numbers are the GM's (issue 18, item 8): in every system, a player character's hit on a quick NPC
reaches the players as words ("Bandit is dying", "hit"), never as the NPC's HP, defence or damage,
on every page and socket frame they get; the GM sees every number; the campaign option
"Players see NPC numbers" shows them to everyone."""

import json
import re

import pytest
from asgiref.sync import sync_to_async
from django.urls import reverse

from campaigns.models import FeedEntry
from campaigns.selectors import FULL, PLAYERS, entry_variant
from campaigns.systems import SHOW_NPC_NUMBERS
from play import encounters as services
from rules.dice import FixedFaces, Roller
from sheets.demo import load_demo_characters
from tests.campaigns.test_consumers import open_socket
from tests.campaigns.test_defence import gm_attacks, npc_turn
from tests.campaigns.test_player_turns import make_fight
from tests.conftest import frames_before_barrier
from tests.npcs import L5R_BANDIT

from .encounter import reload, roller, show_npc_numbers


def act(encounter, gm, actor, action, target, data, *faces):
    """The GM's action for ``actor``, resolved at once (the target's defence with the form's inputs)."""
    services.encounter_act(
        encounter=encounter,
        version=encounter.version,
        actor_id=actor.pk,
        action=action,
        target_id=target.pk if target is not None else None,
        data={f"{action}-{name}": value for name, value in data.items()},  # as the page posts it
        prefix=action,
        roller=Roller(FixedFaces(faces)),
        author=gm,
        resolve_now=True,
    )
    return reload(encounter)


# Each fight: the player character hits the quick NPC. Returns what the GM reads of it in the feed,
# and beside the NPC in the panels (HTML-escaped, as pages and frames carry it); never the players.


def fivebyfive(campaign, gm):
    # tests/campaigns/test_encounter_fivebyfive.py's numbers: Mara hits the Bandit (Brute 6, 12 HP,
    # DB 3, AV -1), its dodge with Brute 6 is too slow, 10 damage: HP 12 -> 2.
    encounter = services.encounter_create(campaign=campaign, name="Salt Road")
    for name in ("Larry Booker", "Mara Quill"):
        services.combatant_add_character(encounter=encounter, character=campaign.characters.get(name=name))
    bandit = services.combatant_add_npc(
        encounter=encounter,
        name="Bandit",
        cleaned_data={
            "descriptors": {"Brute": 6, "Sneaky": 4},
            "hp": 12,
            "weapon_db": 3,
            "armor_av": -1,
            "shield": False,
        },
    )
    services.encounter_start(
        encounter=encounter, version=encounter.version, roller=roller(3, 3, 1, 2), author=gm
    )
    encounter, by = reload(encounter)
    act(encounter, gm, by["Mara Quill"], "attack", bandit, {"dodge": "on"}, 2, 2, 3, 4, 6, 3)
    return ["HP 12 -&gt; 2", "AV -1", "10 damage", "Brute 6"], ["HP 2/12", "Brute 6, Sneaky 4"]


def freefall(campaign, gm):
    # Vesna shoots the Ganger (AV 1, DV 5): DV 3 against AV 1 less 1 (Piercing), 3 levels of harm.
    vesna = campaign.characters.get(name="Vesna Kade")
    encounter = services.encounter_create(campaign=campaign, name="Loading dock")
    services.combatant_add_character(encounter=encounter, character=vesna)
    ganger = services.combatant_add_npc(
        encounter=encounter, name="Ganger", cleaned_data={"body": 3, "mind": 2, "ghost": 2, "av": 1, "dv": 5}
    )
    services.encounter_start(encounter=encounter, version=encounter.version, roller=Roller(), author=gm)
    encounter, by = reload(encounter)
    shoot = {"name": "Shoot", "dice": 3, "difficulty": "challenging", "gear": "Rail pistol"}
    shoot.update(prerequisite="gear", kind="physical")
    encounter, by = act(encounter, gm, by["Vesna Kade"], "attack", ganger, shoot)
    encounter, by = act(encounter, gm, by["Vesna Kade"], "declare", None, {})
    services.encounter_next_turn(encounter=encounter, version=encounter.version, author=gm)  # it passes
    encounter, by = reload(encounter)
    act(encounter, gm, by["Vesna Kade"], "roll", ganger, {}, 19, 5, 12)
    return ["DV 3 against AV 1"], ["AV 1 · DV 5"]


def l5r(campaign, gm):
    # tests/campaigns/test_encounter_l5r.py's numbers: Shinai hits the Bandit's Armor TN 20 (+5 for a
    # raise), 16 wounds: Grazed.
    shinai = campaign.characters.get(name="Bayushi Shinai")
    encounter = services.encounter_create(campaign=campaign, name="Road")
    services.combatant_add_character(encounter=encounter, character=shinai)
    bandit = services.combatant_add_npc(encounter=encounter, name="Bandit", cleaned_data=L5R_BANDIT)
    services.encounter_start(
        encounter=encounter, version=encounter.version, roller=roller(7, 5, 3, 2, 9, 4, 1), author=gm
    )
    encounter, by = reload(encounter)
    katana = shinai.l5r_weapons.get(name="Katana").pk
    data = {"skill": "Kenjutsu", "weapon": str(katana), "raises": "1", "use_void": "on"}
    act(encounter, gm, by["Bayushi Shinai"], "attack", bandit, data, 10, 6, 8, 4, 3, 2, 1, 9, 7, 3, 2, 1, 5)
    return ["Armor TN 20 + 5 for 1 raise", "wounds 0 -&gt; 16", "16 wounds"], ["Wounds 16"]


def triad(campaign, gm):
    # tests/campaigns/test_encounter_triad.py's numbers: Van Helsing's critical takes the Ghoul's
    # Difficulty 10 -> 6.
    encounter = services.encounter_create(campaign=campaign, name="Crypt")
    helsing = campaign.characters.get(name="Abraham Van Helsing")
    services.combatant_add_character(encounter=encounter, character=helsing)
    ghoul = services.combatant_add_npc(
        encounter=encounter,
        name="Ghoul",
        cleaned_data={"difficulty": 10, "weapon": "medium", "armor": "light"},
    )
    services.encounter_start(encounter=encounter, version=encounter.version, roller=roller(3), author=gm)
    encounter, by = reload(encounter)
    act(encounter, gm, by["Abraham Van Helsing"], "attack", ghoul, {"ability": "body"}, 17)
    return ["Difficulty 10 -&gt; 6", "Body 8 vs 10"], ["Difficulty 6/10"]


FIGHTS = {"fivebyfive": fivebyfive, "freefall": freefall, "l5r": l5r, "triad": triad}
NPC = {"fivebyfive": "Bandit", "freefall": "Ganger", "l5r": "Bandit", "triad": "Ghoul"}


def table(system, make_campaign, gm, player, other_player, *, shown: bool):
    campaign = make_campaign(system, players=[player, other_player])
    if shown:
        campaign.options = {**campaign.options, SHOW_NPC_NUMBERS: True}
        campaign.save(update_fields=["options"])
    load_demo_characters(campaign, players=[player, other_player])
    return campaign


def pages(client, campaign, user) -> str:
    """Every page a seat reads the fight on: the table (feed, encounter and turn panels), the panels
    as their live refresh fetches them, and the sheets of the user's characters (recent rolls, turn)."""
    urls = [
        reverse("table", args=[campaign.pk]),
        reverse("table_feed", args=[campaign.pk]),
        reverse("encounter_panel", args=[campaign.pk]),
        reverse("turn_panel", args=[campaign.pk]),
    ]
    urls += [c.get_absolute_url() for c in campaign.characters.filter(owner=user)]
    bodies = []
    for url in urls:
        response = client.get(url)
        assert response.status_code in (200, 204), url
        bodies.append(response.content.decode())
    return "\n".join(bodies)


@pytest.mark.django_db
@pytest.mark.parametrize("system", FIGHTS)
def test_players_read_the_hit_on_an_npc_without_its_numbers_and_the_gm_reads_them(
    system, make_campaign, gm, player, other_player, client_for
):
    campaign = table(system, make_campaign, gm, player, other_player, shown=False)
    secrets = [*sum(FIGHTS[system](campaign, gm), [])]
    gm_pages = pages(client_for(gm), campaign, gm)
    assert all(secret in gm_pages for secret in secrets), [s for s in secrets if s not in gm_pages]
    for seat in (player, other_player):
        seen = pages(client_for(seat), campaign, seat)
        assert NPC[system] in seen and "data-outcome" in seen
        assert not [secret for secret in secrets if secret in seen]
    # No entry's odds show against the NPC either: the chance is in the GM's words only.
    numbered = [e for e in FeedEntry.objects.filter(campaign=campaign) if PLAYERS in e.result]
    seat = {"viewer_id": player.pk, "gm_id": gm.pk, "numbers_gm_only": True}
    assert numbered and all(
        entry_variant(visibility=e.visibility, author_id=e.author_id, **seat) in (PLAYERS, None)
        for e in numbered
    )


@pytest.mark.django_db
@pytest.mark.parametrize("system", FIGHTS)
def test_the_campaign_option_shows_npc_numbers_to_everyone(
    system, make_campaign, gm, player, other_player, client_for
):
    campaign = table(system, make_campaign, gm, player, other_player, shown=True)
    secrets = [*sum(FIGHTS[system](campaign, gm), [])]
    assert not any(PLAYERS in e.result for e in FeedEntry.objects.filter(campaign=campaign))
    seen = pages(client_for(player), campaign, player)
    assert all(secret in seen for secret in secrets), [s for s in secrets if s not in seen]


def test_the_gm_alone_gets_the_full_variant_of_a_line_with_npc_numbers():
    ask = {"visibility": "public", "author_id": 2, "gm_id": 1, "numbers_gm_only": True}
    assert entry_variant(viewer_id=1, **ask) == FULL
    assert entry_variant(viewer_id=2, **ask) == PLAYERS  # its author too: a player acting on their turn
    assert entry_variant(viewer_id=3, **ask) == PLAYERS
    assert entry_variant(viewer_id=3, **{**ask, "visibility": "gm"}) is None
    assert entry_variant(viewer_id=2, **{**ask, "visibility": "blind"}) == "notice"


# -- the socket: every frame a seat receives, live and on catch-up -----------------------------------


async def drained(campaign, communicator) -> list[str]:
    """Every frame the socket got before a barrier sent to the table now, as text."""
    (frames,) = await frames_before_barrier(campaign.pk, communicator)
    return [json.dumps(frame, ensure_ascii=False) for frame in frames]


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("shown", [False, True])
@pytest.mark.parametrize("system", FIGHTS)
async def test_socket_frames_carry_npc_numbers_to_the_gm_alone(
    system, shown, make_campaign, gm, player, other_player, settings
):
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    campaign = await sync_to_async(table)(system, make_campaign, gm, player, other_player, shown=shown)
    sockets = {user: (await open_socket(user, campaign))[0] for user in (gm, player)}
    secrets, _ = await sync_to_async(FIGHTS[system])(campaign, gm)
    live = {user: "\n".join(await drained(campaign, socket)) for user, socket in sockets.items()}
    for socket in sockets.values():
        await socket.disconnect()
    caught_up = {}
    for user in sockets:
        socket, replayed = await open_socket(user, campaign)
        caught_up[user] = "\n".join(frame["html"] for frame in replayed)
        await socket.disconnect()
    for frames in (live, caught_up):
        assert all(secret in frames[gm] for secret in secrets), [s for s in secrets if s not in frames[gm]]
        assert NPC[system] in frames[player]
        assert [secret for secret in secrets if secret in frames[player]] == (secrets if shown else [])


# -- odds that would tell an NPC's numbers --------------------------------------------------------


def attack_odds(client, campaign, encounter, actor, npc, **fields) -> str:
    """The odds of the actor's attack at the NPC as its turn panel asks for them (encounter_odds)."""
    query = {"actor": actor.pk, "action": "attack", "target": npc.pk}
    query.update({f"attack-{name}": value for name, value in fields.items()})
    return client.get(reverse("encounter_odds", args=[campaign.pk, encounter.pk]), query).content.decode()


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("system", "fields", "telling"),
    [
        ("triad", {"ability": "body"}, True),  # against its Difficulty
        ("l5r", {"skill": "Kenjutsu"}, True),  # against its Armor TN
        ("fivebyfive", {}, False),  # the attacker's own descriptor: the dodge comes after
        ("freefall", {"name": "Shoot", "dice": "3", "difficulty": "challenging", "kind": "physical"}, False),
    ],
)
def test_a_players_odds_against_an_npc_show_only_when_they_tell_nothing_of_it(
    system, fields, telling, make_campaign, gm, player, other_player, client_for
):
    campaign, encounter, mine, _, npc = make_fight(make_campaign, gm, player, other_player, system)
    actor = encounter.combatants.get(character=mine)
    if system == "l5r":
        fields["weapon"] = str(mine.l5r_weapons.get(name="Katana").pk)
    client = client_for(player)
    panel = client.get(reverse("turn_panel", args=[campaign.pk])).content.decode()
    button = re.search(r'name="action" value="attack">(.*?)</form>', panel, flags=re.S).group(1)
    odds = attack_odds(client, campaign, encounter, actor, npc, **fields)
    assert ("roll-chance" in button, "roll-chance" in odds) == (not telling, not telling)
    assert "roll-chance" in attack_odds(client_for(gm), campaign, encounter, actor, npc, **fields)
    show_npc_numbers(campaign)
    assert "roll-chance" in attack_odds(client, campaign, encounter, actor, npc, **fields)


@pytest.mark.django_db
def test_a_triad_defence_against_an_npc_shows_no_odds_nor_its_difficulty(
    make_campaign, gm, player, other_player, client_for
):
    campaign, encounter, mine, _, npc = make_fight(make_campaign, gm, player, other_player, "triad")
    npc_turn(encounter, npc, gm)
    gm_attacks(client_for(gm), encounter, npc, encounter.combatants.get(character=mine))
    client = client_for(player)
    panel = client.get(reverse("turn_panel", args=[campaign.pk])).content.decode()
    asked = client.get(reverse("defence_odds", args=[campaign.pk, encounter.pk])).content.decode()
    assert "defend-now" in panel and "roll-chance" not in panel + asked and "Difficulty" not in panel
    show_npc_numbers(campaign)
    assert "roll-chance" in client.get(reverse("turn_panel", args=[campaign.pk])).content.decode()
