"""Players take their own turns: on their character's turn the owner acts from the turn panel (sheet
and table), with the odds shown; out of turn, or for someone else's character, the server refuses.
The GM still acts for anyone. Every system is played through the panel's own URL with fixed dice."""

import html
import re
from fractions import Fraction

import pytest
from asgiref.sync import sync_to_async
from django.urls import reverse

from campaigns.models import FeedEntry
from campaigns.rendering import format_percent
from play import encounters as services
from play.models import Encounter
from rules import freefall
from rules.dice import FixedFaces, Roller
from sheets.demo import load_demo_characters
from tests.campaigns.encounter import show_npc_numbers
from tests.campaigns.test_consumers import open_socket
from tests.conftest import HTMX, frames_before_barrier
from tests.npcs import sample_npc

pytestmark = pytest.mark.django_db


def roller(*faces):
    return Roller(FixedFaces(faces))


def make_fight(make_campaign, gm, player, other_player, system):
    """Both players' characters and a quick NPC, started; the turn moved on to the player's character."""
    campaign = make_campaign(system, players=[player, other_player])
    load_demo_characters(campaign, players=[player, other_player])
    mine = campaign.characters.get(owner=player)
    theirs = campaign.characters.get(owner=other_player)
    encounter = services.encounter_create(campaign=campaign, name="Ambush")
    services.combatant_add_character(encounter=encounter, character=mine)
    services.combatant_add_character(encounter=encounter, character=theirs)
    bandit = services.combatant_add_npc(encounter=encounter, name="Bandit", cleaned_data=sample_npc(system))
    services.encounter_start(
        encounter=encounter, version=encounter.version, roller=roller(*(5,) * 60), author=gm
    )
    advance_to(encounter, mine, gm)
    return campaign, encounter, mine, theirs, bandit


def actor_of(encounter):
    encounter.refresh_from_db()
    return services.current_actor(encounter, services.combatants_of(encounter))


def advance_to(encounter, character, gm):
    """The GM presses Next turn until it is ``character``'s."""
    for _ in range(10):
        if actor_of(encounter).character_id == character.pk:
            return
        services.encounter_next_turn(encounter=encounter, version=encounter.version, author=gm)
    raise AssertionError(f"{character.name}'s turn never came")


def combatant(encounter, character):
    return encounter.combatants.get(character=character)


def post(client, encounter, actor, action, *, target=None, character=None, htmx=True, **fields):
    data = {"version": encounter.version, "actor": actor.pk, "action": action}
    if target is not None:
        data["target"] = target.pk
    if character is not None:
        data["character"] = character.pk
    data.update({f"{action}-{name}": value for name, value in fields.items()})
    url = reverse("turn_act", args=[encounter.campaign_id, encounter.pk])
    return client.post(url, data, **(HTMX if htmx else {}))


def shown_odds(html, action_key):
    """The odds the panel shows on one action's button."""
    form = re.search(rf'name="action" value="{action_key}">(.*?)</form>', html, flags=re.S).group(1)
    return re.search(r'<span class="roll-chance">([^<]+)</span>', form).group(1)


@pytest.fixture
def triad_fight(make_campaign, gm, player, other_player):
    return make_fight(make_campaign, gm, player, other_player, "triad")


# ----- who may act --------------------------------------------------------------------------------


def test_the_owner_attacks_on_their_own_turn_from_the_sheet(triad_fight, player, client_for, fixed_dice):
    campaign, encounter, mine, _, bandit = triad_fight
    show_npc_numbers(campaign)  # the odds against the NPC tell its Difficulty
    actor = combatant(encounter, mine)
    client = client_for(player)
    sheet = client.get(mine.get_absolute_url()).content.decode()
    odds = shown_odds(sheet, "attack")
    fixed_dice(17)
    response = post(client, encounter, actor, "attack", target=bandit, character=mine)
    assert response.status_code == 200
    attack = FeedEntry.objects.get(label=f"Ambush: {mine.name} attacks Bandit")
    assert attack.author == player and attack.result["dice"][0]["face"] == 17
    assert format_percent(Fraction(attack.chance)) == odds
    # The answer is the panel again, with the fight's latest lines (the feed is not on the sheet).
    assert 'id="turn-panel"' in response.content.decode() and "attacks Bandit" in response.content.decode()


def test_a_player_out_of_turn_is_refused_and_nothing_moves(triad_fight, gm, player, client_for):
    campaign, encounter, mine, theirs, bandit = triad_fight
    advance_to(encounter, theirs, gm)
    before = (encounter.version, FeedEntry.objects.count())
    response = post(client_for(player), encounter, combatant(encounter, mine), "attack", target=bandit)
    assert response.status_code == 403
    assert response.content.decode() == f"It is not your turn: it is {theirs.name}'s."
    encounter.refresh_from_db()
    assert (encounter.version, FeedEntry.objects.count()) == before


def test_another_player_cannot_take_someone_elses_turn(triad_fight, other_player, client_for):
    campaign, encounter, mine, _, bandit = triad_fight
    before = FeedEntry.objects.count()
    response = post(client_for(other_player), encounter, combatant(encounter, mine), "attack", target=bandit)
    assert response.status_code == 403
    assert f"only {mine.name}'s player or the GM" in response.content.decode()
    assert FeedEntry.objects.count() == before
    # Nor through the GM's own encounter route.
    url = reverse("encounter_action", args=[campaign.pk, encounter.pk, "act"])
    assert client_for(other_player).post(url, {"version": encounter.version}).status_code == 403


def test_nobody_takes_a_quick_npcs_turn_but_the_gm(triad_fight, gm, player, client_for, fixed_dice):
    campaign, encounter, mine, _, bandit = triad_fight
    while actor_of(encounter).pk != bandit.pk:
        services.encounter_next_turn(encounter=encounter, version=encounter.version, author=gm)
    response = post(client_for(player), encounter, bandit, "move")
    assert response.status_code == 403
    fixed_dice(3)
    assert post(client_for(gm), encounter, bandit, "move").status_code == 204  # done; the GM has no panel
    assert FeedEntry.objects.filter(label="Ambush: Bandit moves", author=gm).exists()


def test_the_gm_acts_for_a_player_from_the_same_panel_route(triad_fight, gm, client_for, fixed_dice):
    campaign, encounter, mine, _, bandit = triad_fight
    fixed_dice(17)
    response = post(
        client_for(gm), encounter, combatant(encounter, mine), "attack", target=bandit, ability="body"
    )
    assert response.status_code == 204  # the GM has no turn panel; the act is done
    assert FeedEntry.objects.get(label=f"Ambush: {mine.name} attacks Bandit").author == gm


def test_the_gms_calls_are_not_the_players_to_make(triad_fight, gm, player, client_for, fixed_dice):
    """Advantage from the scene and the score an attack rolls are the GM's rulings: not on the player's
    form, and refused when a player posts them anyway (the GM's own form has them)."""
    campaign, encounter, mine, _, bandit = triad_fight
    page = client_for(player).get(reverse("turn_panel", args=[campaign.pk])).content.decode()
    assert "attack-advantages" not in page and "attack-disadvantages" not in page
    assert 'name="attack-advantages"' in client_for(gm).get(encounter.get_absolute_url()).content.decode()
    fixed_dice(17, 4)
    refused = post(
        client_for(player), encounter, combatant(encounter, mine), "attack", target=bandit, advantages="1"
    )
    assert refused.status_code == 422 and "the GM's call" in html.unescape(refused.content.decode())
    assert not FeedEntry.objects.filter(label=f"Ambush: {mine.name} attacks Bandit").exists()
    post(client_for(player), encounter, combatant(encounter, mine), "attack", target=bandit)
    attack = FeedEntry.objects.get(label=f"Ambush: {mine.name} attacks Bandit")
    assert len(attack.result["dice"]) == 1  # no advantage die was rolled


def test_a_stale_page_gets_a_message_on_the_panel(triad_fight, player, client_for):
    campaign, encounter, mine, _, bandit = triad_fight
    actor = combatant(encounter, mine)
    encounter.version -= 1  # a page drawn before the last change
    response = post(client_for(player), encounter, actor, "attack", target=bandit, character=mine)
    assert response.status_code == 422
    assert "moved on since this page was loaded" in response.content.decode()
    assert not FeedEntry.objects.filter(label__contains="attacks").exists()


def test_without_javascript_the_player_is_sent_back_with_the_message(triad_fight, gm, player, client_for):
    campaign, encounter, mine, theirs, bandit = triad_fight
    advance_to(encounter, theirs, gm)
    client = client_for(player)
    response = post(
        client, encounter, combatant(encounter, mine), "attack", target=bandit, character=mine, htmx=False
    )
    assert response.status_code == 302 and response.url == mine.get_absolute_url()
    assert "It is not your turn" in client.get(response.url).content.decode()


# ----- the panel goes to that player only --------------------------------------------------------


def test_the_turn_panel_shows_your_turn_only_to_the_player_whose_turn_it_is(
    triad_fight, gm, player, other_player, client_for
):
    campaign, encounter, mine, theirs, _ = triad_fight
    act_url = reverse("turn_act", args=[campaign.pk, encounter.pk])
    sheet = client_for(player).get(mine.get_absolute_url()).content.decode()
    announce = re.search(r'<div id="turn-announce"[^>]*>(.*?)</div>', sheet, flags=re.S)
    assert 'role="status"' in announce.group(0) and f"Your turn: <bdi>{mine.name}</bdi>" in announce.group(1)
    assert "is-your-turn" in sheet and act_url in sheet
    table = client_for(player).get(reverse("table", args=[campaign.pk])).content.decode()
    assert "Your turn" in table and act_url in table

    # The other player: the panel says whose turn it is, with no form and no announcement.
    for body in (
        client_for(other_player).get(reverse("turn_panel", args=[campaign.pk])).content.decode(),
        client_for(other_player).get(theirs.get_absolute_url()).content.decode(),
        client_for(other_player).get(reverse("table", args=[campaign.pk])).content.decode(),
    ):
        assert "Your turn" not in body and act_url not in body and "is-your-turn" not in body
    assert (
        f"Now: <strong><bdi>{mine.name}</bdi></strong>"
        in client_for(other_player).get(reverse("turn_panel", args=[campaign.pk])).content.decode()
    )
    # Someone else's sheet has no turn panel at all; the GM runs turns from the encounter page.
    assert 'id="turn-panel"' not in client_for(other_player).get(mine.get_absolute_url()).content.decode()
    assert client_for(gm).get(reverse("turn_panel", args=[campaign.pk])).status_code == 204
    assert 'id="turn-panel"' not in client_for(gm).get(mine.get_absolute_url()).content.decode()
    # Fetched again (the live refresh), the announcement travels out of band into the page's live region.
    fresh = client_for(player).get(reverse("sheet_turn", args=[mine.pk]), **HTMX).content.decode()
    assert '<div id="turn-announce" hx-swap-oob="innerHTML">' in fresh and "Your turn" in fresh


def test_outside_a_fight_the_panel_is_an_empty_placeholder(make_campaign, player, other_player, client_for):
    campaign = make_campaign("triad", players=[player, other_player])
    load_demo_characters(campaign, players=[player, other_player])
    mine = campaign.characters.get(owner=player)
    sheet = client_for(player).get(mine.get_absolute_url()).content.decode()
    assert re.search(r'<section id="turn-panel"[^>]* hidden>', sheet)
    assert "Your turn" not in sheet


def test_the_odds_follow_the_inputs(make_campaign, gm, player, other_player, client_for):
    campaign, encounter, mine, _, bandit = make_fight(make_campaign, gm, player, other_player, "l5r")
    show_npc_numbers(campaign)  # the odds against the NPC tell its Armor TN
    actor = combatant(encounter, mine)
    url = reverse("encounter_odds", args=[campaign.pk, encounter.pk])
    base = {
        "actor": actor.pk,
        "action": "attack",
        "target": bandit.pk,
        "attack-skill": "Kenjutsu",
        "attack-weapon": str(mine.l5r_weapons.get(name="Katana").pk),
    }
    plain = client_for(player).get(url, base).content.decode()
    raised = client_for(player).get(url, {**base, "attack-raises": "2"}).content.decode()
    assert plain.startswith('<span class="action-odds"> - <span class="roll-chance">')
    assert plain != raised  # two raises: +10 to the TN
    assert client_for(other_player).get(url, base).status_code == 403


# ----- one player's turn per system, with fixed dice ----------------------------------------------


def test_a_five_by_five_player_attacks_on_their_turn(
    make_campaign, gm, player, other_player, client_for, fixed_dice
):
    campaign, encounter, mine, _, bandit = make_fight(make_campaign, gm, player, other_player, "fivebyfive")
    client = client_for(player)
    panel = client.get(reverse("turn_panel", args=[campaign.pk])).content.decode()
    odds = shown_odds(panel, "attack")
    # The target's dodge is not the attacker's call: the player's form has none of its inputs.
    assert "attack-dodge" not in panel and "attack-shift" not in panel
    fixed_dice(*(2, 3) * 10)  # 2 x 3 = 6: a miss for any trained descriptor of the demo (5x5, l.45)
    response = post(client, encounter, combatant(encounter, mine), "attack", target=bandit)
    assert response.status_code == 200, response.content[:400]
    attack = FeedEntry.objects.get(label=f"Ambush: {mine.name} attacks Bandit")
    assert attack.author == player and [d["face"] for d in attack.result["dice"]] == [2, 3]
    assert format_percent(Fraction(attack.chance)) == odds


def test_a_freefall_player_declares_then_rolls_their_own_action(
    make_campaign, gm, player, other_player, client_for, fixed_dice
):
    campaign, encounter, mine, theirs, bandit = make_fight(
        make_campaign, gm, player, other_player, "freefall"
    )
    client = client_for(player)
    actor = combatant(encounter, mine)
    panel = client.get(reverse("turn_panel", args=[campaign.pk])).content.decode()
    tn = freefall.Difficulty.CHALLENGING.tn
    assert shown_odds(panel, "attack") == format_percent(freefall.odds(1, tn).at_least_success)
    weapon = re.search(r'name="attack-gear"[^>]*>\s*<option value="([^"]*)"', panel).group(1)
    assert (
        post(
            client,
            encounter,
            actor,
            "attack",
            target=bandit,
            name="Shoot",
            dice="1",
            gear=weapon,
            prerequisite="gear",
            kind="physical",
        ).status_code
        == 200
    )
    encounter.refresh_from_db()
    assert post(client, encounter, actor, "declare").status_code == 200
    assert FeedEntry.objects.get(label=f"Ambush: {mine.name} declares").author == player
    # The others pass; the round resolves, last declared first: the player's action comes up.
    advance_to(encounter, mine, gm)
    panel = client.get(reverse("turn_panel", args=[campaign.pk])).content.decode()
    odds = shown_odds(panel, "roll")
    fixed_dice(3)  # a natural 3: a failure against TN 11 (FREE/FALL, l.57)
    assert post(client, encounter, actor, "roll", target=bandit).status_code == 200
    shot = FeedEntry.objects.get(label=f"Ambush: {mine.name}: Shoot at Bandit")
    assert shot.author == player and shot.result["dice"][0]["face"] == 3
    assert format_percent(Fraction(shot.chance)) == odds


def test_an_l5r_player_attacks_and_spends_void_on_their_turn(
    make_campaign, gm, player, other_player, client_for, fixed_dice
):
    campaign, encounter, mine, _, bandit = make_fight(make_campaign, gm, player, other_player, "l5r")
    show_npc_numbers(campaign)  # the odds against the NPC tell its Armor TN
    client = client_for(player)
    katana = mine.l5r_weapons.get(name="Katana").pk
    odds = client.get(
        reverse("encounter_odds", args=[campaign.pk, encounter.pk]),
        {
            "actor": combatant(encounter, mine).pk,
            "action": "attack",
            "target": bandit.pk,
            "attack-skill": "Kenjutsu",
            "attack-weapon": str(katana),
            "attack-use_void": "on",
        },
    ).content.decode()
    fixed_dice(*(2,) * 20)  # every die a 2: 2 + 2 + 2 + 2 = 8 against Armor TN 20, a miss
    response = post(
        client,
        encounter,
        combatant(encounter, mine),
        "attack",
        target=bandit,
        character=mine,
        skill="Kenjutsu",
        weapon=str(katana),
        raises="0",
        use_void="on",
    )
    assert response.status_code == 200
    attack = FeedEntry.objects.get(label=f"Ambush: {mine.name} attacks Bandit")
    assert attack.author == player and attack.result["outcome_label"] == "miss"
    assert attack.result["changes"] == [f"{mine.name}: Void point spent, 1 of 2 left"]
    assert format_percent(Fraction(attack.chance)) in odds
    mine.l5r.refresh_from_db()
    assert mine.l5r.void_spent == 1  # the sheet it touched
    assert mine.changes.filter(author=player).exists()


def test_a_triad_player_evades_on_their_turn(triad_fight, player, client_for):
    campaign, encounter, mine, _, _ = triad_fight
    assert post(client_for(player), encounter, combatant(encounter, mine), "evade").status_code == 200
    assert FeedEntry.objects.get(label=f"Ambush: {mine.name} evades").author == player
    assert combatant(encounter, mine).state["evading"] is True


def test_a_triad_player_spends_extra_effort_on_their_own_attack(triad_fight, player, client_for, fixed_dice):
    """Triad l.57: "By expending one point from a related ability score, a character gains Advantage on one
    related task roll" - the player's own choice on their turn, paid from their own score."""
    campaign, encounter, mine, _, bandit = triad_fight
    encounter.refresh_from_db()
    fixed_dice(3, 16)  # advantage keeps 16: Body 8 vs 10, a critical
    response = post(
        client_for(player),
        encounter,
        combatant(encounter, mine),
        "attack",
        target=bandit,
        character=mine,
        extra_effort="on",
    )
    assert response.status_code == 200
    entry = FeedEntry.objects.get(label=f"Ambush: {mine.name} attacks Bandit")
    assert [d["kept"] for d in entry.result["dice"]] == [False, True]
    assert "Body 8 -> 7 (extra effort)" in entry.result["changes"]
    mine.triad.refresh_from_db()
    assert mine.triad.body == 7


# ----- the wire -----------------------------------------------------------------------------------


@pytest.fixture
def in_memory_layer(settings):
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}


# Transactional: the broadcasts this socket test hears go out on commit.
@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_the_turn_travels_as_a_bare_refresh_and_each_page_asks_for_its_own_panel(
    in_memory_layer, make_campaign, gm, player, other_player
):
    campaign, encounter, mine, theirs, _ = await sync_to_async(make_fight)(
        make_campaign, gm, player, other_player, "triad"
    )
    alice, _ = await open_socket(player, campaign, feed=False)
    bob, _ = await open_socket(other_player, campaign, feed=False)
    await sync_to_async(services.encounter_next_turn)(
        encounter=encounter, version=encounter.version, author=gm
    )
    # No names, no forms, no odds: the turn moved on, so every turn panel is asked for again. The
    # encounter's frame carries only the digest of what every player sees (campaigns.realtime.shows).
    for heard in await frames_before_barrier(campaign.pk, alice, bob):
        assert [{k: v for k, v in frame.items() if k != "shows"} for frame in heard] == [
            {"type": "refresh", "panel": "encounter"},
            {"type": "refresh", "panel": "turn"},
        ]
        assert re.fullmatch("[0-9a-f]{32}", heard[0]["shows"])
    await alice.disconnect()
    await bob.disconnect()
    assert await sync_to_async(lambda: Encounter.objects.get(pk=encounter.pk).status)() == "running"


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_an_action_that_leaves_the_turn_as_it_was_refreshes_only_the_panels_that_follow_it(
    in_memory_layer, make_campaign, gm, player, other_player
):
    """A Triad attack does not end the turn: the other player's turn panel at the table would show the
    same, so only the "encounter" refresh goes out, which the acting player's panels and the sheets'
    latest lines follow."""
    campaign, encounter, mine, theirs, bandit = await sync_to_async(make_fight)(
        make_campaign, gm, player, other_player, "triad"
    )
    actor = await sync_to_async(combatant)(encounter, mine)
    bob, _ = await open_socket(other_player, campaign, feed=False)
    await sync_to_async(services.encounter_act)(
        encounter=encounter, version=encounter.version, actor_id=actor.pk, action="attack",
        target_id=bandit.pk, data={}, prefix="attack", roller=roller(17), author=player,
    )
    (heard,) = await frames_before_barrier(campaign.pk, bob)
    await bob.disconnect()
    panels = [frame["panel"] for frame in heard if frame["type"] == "refresh"]
    assert "encounter" in panels and "turn" not in panels, heard


def test_each_turn_panel_follows_the_refresh_that_can_change_it(
    triad_fight, gm, player, other_player, client_for
):
    campaign, encounter, mine, theirs, _ = triad_fight

    def followed(user, url):
        page = client_for(user).get(url).content.decode()
        return re.search(r'id="turn-panel"[^>]*data-live-panel="([^"]+)"', page)[1]

    table = reverse("table", args=[campaign.pk])
    assert followed(player, table) == "encounter"  # its turn: its actions change with each one taken
    assert followed(other_player, table) == "turn"  # waiting: only whose turn it is can change
    assert followed(other_player, theirs.get_absolute_url()) == "encounter"  # a sheet's latest lines
    advance_to(encounter, theirs, gm)
    assert followed(player, table) == "turn"
    assert followed(other_player, table) == "encounter"


def test_an_action_that_is_the_gms_alone_is_neither_offered_nor_taken_from_a_player(
    make_campaign, gm, player, other_player, client_for
):
    """Setting up a cumulative task is the GM's part of the scene (docs/rules.md, L5R cumulative rolls):
    a player on their own turn is not offered it, and a posted one is refused with nothing stored."""
    campaign, encounter, mine, _, bandit = make_fight(make_campaign, gm, player, other_player, "l5r")
    client = client_for(player)
    sheet = client.get(mine.get_absolute_url()).content.decode()
    assert 'name="action" value="attack"' in sheet
    assert 'name="action" value="task"' not in sheet
    before = (encounter.version, dict(encounter.state))
    actor = combatant(encounter, mine)
    response = post(client, encounter, actor, "task", character=mine, name="Climb", tn="40")
    assert response.status_code == 422
    assert "That action is not open to this combatant now." in response.content.decode()
    encounter.refresh_from_db()
    assert (encounter.version, encounter.state) == before
    gm_page = client_for(gm).get(encounter.get_absolute_url()).content.decode()
    assert 'value="task"' in gm_page
