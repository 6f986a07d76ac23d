"""The defender's choice: when the GM's NPC attacks a player's character, the defence is that player's
(Five by Five l.500-503: the dodge is "the action a player declares after being the successful target
of an attack"; Triad l.62 and l.56: the defender's related (Adv.) trait and extra effort on the roll
that holds the attack off). The attack waits in the encounter; the defender's player answers from their
turn panel, or the GM resolves it without waiting. Played through the pages' own URLs with fixed dice."""

import re
from fractions import Fraction

import pytest
from asgiref.sync import sync_to_async
from django.urls import reverse

from campaigns.models import FeedEntry
from campaigns.rendering import format_percent
from play import encounters as services
from play.models import Encounter
from tests.campaigns.encounter import show_npc_numbers
from tests.campaigns.test_consumers import open_socket
from tests.campaigns.test_player_turns import actor_of, combatant, make_fight, roller
from tests.conftest import HTMX, frames_before_barrier

pytestmark = pytest.mark.django_db


def npc_turn(encounter, npc, gm):
    """The GM presses Next turn until it is the quick NPC's."""
    for _ in range(10):
        if actor_of(encounter).pk == npc.pk:
            return
        services.encounter_next_turn(encounter=encounter, version=encounter.version, author=gm)
    raise AssertionError("the NPC's turn never came")


def gm_attacks(client, encounter, npc, target, *, resolve_now=False, **fields):
    """The GM's attack from the encounter page, the action's inputs given without their prefix."""
    encounter.refresh_from_db()
    data = {"version": encounter.version, "actor": npc.pk, "action": "attack", "target": target.pk}
    if resolve_now:
        data["resolve_now"] = "on"
    data.update({f"attack-{name}": value for name, value in fields.items()})
    return client.post(reverse("encounter_action", args=[encounter.campaign_id, encounter.pk, "act"]), data)


def defend(client, encounter, defender, *, character=None, version=None, **fields):
    """An answer from the turn panel (htmx), the defence's inputs given without their prefix."""
    encounter.refresh_from_db()
    data = {"version": encounter.version if version is None else version, "defender": defender.pk}
    if character is not None:
        data["character"] = character.pk
    data.update({f"defence-{name}": value for name, value in fields.items()})
    url = reverse("turn_defend", args=[encounter.campaign_id, encounter.pk])
    return client.post(url, data, **HTMX)


def pending(encounter):
    encounter.refresh_from_db()
    return services.pending_defence(encounter)


def odds_listed(html):
    """The prompt's list of options with the chance each holds the attack off."""
    listed = re.search(r'<ul class="small mb-2 defence-odds">(.*?)</ul>', html, flags=re.S).group(1)
    return dict(re.findall(r"<li><bdi>([^<]+)</bdi>: <span class=\"roll-chance\">([^<]+)</span>", listed))


def options_of(html, name):
    """{value: label} of the select called ``name``."""
    select = re.search(rf'<select name="{name}"[^>]*>(.*?)</select>', html, flags=re.S).group(1)
    return dict(re.findall(r'<option value="([^"]*)"[^>]*>([^<]+)</option>', select))


def entries_after(count):
    return list(FeedEntry.objects.order_by("pk")[count:])


# ----- Five by Five ----------------------------------------------------------------------------------


@pytest.fixture
def fivebyfive(make_campaign, gm, player, other_player):
    campaign, encounter, mine, theirs, bandit = make_fight(
        make_campaign, gm, player, other_player, "fivebyfive"
    )
    npc_turn(encounter, bandit, gm)
    return campaign, encounter, mine, theirs, bandit


def test_five_by_five_the_hit_players_declares_the_dodge(
    fivebyfive, gm, player, client_for, fixed_dice
):
    """Five by Five l.500-503: the hit lands first, then the target's player declares the dodge, with
    the descriptor they pick and their own token; the dodge and damage roll only then."""
    campaign, encounter, mine, _, bandit = fivebyfive
    target = combatant(encounter, mine)
    mine.fivebyfive.doubles_token = True
    mine.fivebyfive.save(update_fields=["doubles_token"])
    gm_client, client = client_for(gm), client_for(player)
    before = FeedEntry.objects.count()
    fixed_dice(2, 3)  # Brute 6: 2 x 3 = 6, a hit
    assert gm_attacks(gm_client, encounter, bandit, target).status_code == 302
    hit = entries_after(before)
    assert [e.label for e in hit] == [f"Ambush: Bandit attacks {mine.name}"] and "hit" in hit[0].summary
    waiting = pending(encounter)
    assert waiting["defender"] == target.pk and waiting["attacker"] == bandit.pk
    # The sheet's turn panel prompts the player, with each dodge's odds and the token on their form.
    sheet = client.get(mine.get_absolute_url()).content.decode()
    assert "Defend: <bdi>Bandit</bdi> attacks" in sheet and 'role="status"' in sheet
    listed = odds_listed(sheet)
    assert listed and all(label.startswith("Dodge with ") for label in listed)
    choices = options_of(sheet, "defence-dodge_with")
    assert "No dodge: take the damage" in choices.values() and 'name="defence-dodge_token"' in sheet
    # The player picks a dodge that is not the automatic one, and spends the token: faces 1 x 1.
    picked = next(key for key, label in choices.items() if key != "none" and "(auto)" not in label)
    label = choices[picked].removeprefix("Dodge with ")
    fixed_dice(1, 1)
    response = defend(client, encounter, target, character=mine, dodge_with=picked, dodge_token="on")
    assert response.status_code == 200 and "Defend:" not in response.content.decode()
    dodge = FeedEntry.objects.get(label=f"Ambush: {mine.name} dodges")
    assert dodge.author == player and dodge.summary.startswith(label)
    assert f"{mine.name} spends a doubles token" in dodge.result["changes"]
    assert pending(encounter) is None
    target.refresh_from_db()
    assert target.state["dodges"] == 1
    # The GM's page shows the result in its log and the Bandit's turn again, open for Next turn.
    page = gm_client.get(encounter.get_absolute_url()).content.decode()
    assert f"{mine.name} dodges" in page and "Resolve without waiting" not in page


def test_five_by_five_no_dodge_lets_the_damage_land(fivebyfive, gm, player, client_for, fixed_dice):
    campaign, encounter, mine, _, bandit = fivebyfive
    target = combatant(encounter, mine)
    hp = mine.fivebyfive.hp
    fixed_dice(2, 3)
    gm_attacks(client_for(gm), encounter, bandit, target)
    fixed_dice(4)  # damage 4 + DB 3 + the target's AV
    defend(client_for(player), encounter, target, dodge_with="none")
    damage = FeedEntry.objects.get(label=f"Ambush: Bandit damages {mine.name}")
    mine.fivebyfive.refresh_from_db()
    assert mine.fivebyfive.hp == hp - damage.result["total"]
    assert not FeedEntry.objects.filter(label__contains="dodges").exists()


def test_five_by_five_a_miss_asks_nothing(fivebyfive, gm, client_for, fixed_dice):
    campaign, encounter, mine, _, bandit = fivebyfive
    fixed_dice(5, 4)  # 20 > Brute 6: a miss
    gm_attacks(client_for(gm), encounter, bandit, combatant(encounter, mine))
    assert pending(encounter) is None


def test_five_by_five_the_gm_resolves_without_waiting(fivebyfive, gm, player, client_for, fixed_dice):
    campaign, encounter, mine, _, bandit = fivebyfive
    target = combatant(encounter, mine)
    gm_client = client_for(gm)
    fixed_dice(2, 3)
    gm_attacks(gm_client, encounter, bandit, target)
    page = gm_client.get(encounter.get_absolute_url()).content.decode()
    assert "Resolve without waiting" in page and 'name="defence-dodge_with"' in page
    encounter.refresh_from_db()
    fixed_dice(4)
    gm_client.post(
        reverse("encounter_action", args=[campaign.pk, encounter.pk, "defend"]),
        {"version": encounter.version, "defender": target.pk, "defence-dodge_with": "none"},
    )
    assert pending(encounter) is None
    assert FeedEntry.objects.get(label=f"Ambush: Bandit damages {mine.name}").author == gm


def test_five_by_five_the_gm_may_resolve_at_once_with_the_forms_dodge(fivebyfive, gm, client_for, fixed_dice):
    """Today's flow, on the GM's say: "Resolve at once" rolls the dodge from the attack form's inputs."""
    campaign, encounter, mine, _, bandit = fivebyfive
    fixed_dice(2, 3, 5, 4, 1)  # hit; the dodge (20) fails; damage 1
    gm_attacks(client_for(gm), encounter, bandit, combatant(encounter, mine), dodge="on", resolve_now=True)
    assert pending(encounter) is None
    assert FeedEntry.objects.filter(label=f"Ambush: {mine.name} dodges").exists()
    assert FeedEntry.objects.filter(label=f"Ambush: Bandit damages {mine.name}").exists()


def test_a_character_the_gm_plays_defends_at_once(fivebyfive, gm, client_for, fixed_dice):
    campaign, encounter, mine, _, bandit = fivebyfive
    type(mine).objects.filter(pk=mine.pk).update(owner=gm)
    fixed_dice(2, 3, 4)
    gm_attacks(client_for(gm), encounter, bandit, combatant(encounter, mine))
    assert pending(encounter) is None
    assert FeedEntry.objects.filter(label=f"Ambush: Bandit damages {mine.name}").exists()


def test_five_by_five_nothing_else_moves_while_the_defence_waits(fivebyfive, gm, client_for, fixed_dice):
    campaign, encounter, mine, theirs, bandit = fivebyfive
    gm_client = client_for(gm)
    fixed_dice(2, 3)
    gm_attacks(gm_client, encounter, bandit, combatant(encounter, mine))
    encounter.refresh_from_db()
    version = encounter.version
    response = gm_client.post(
        reverse("encounter_action", args=[campaign.pk, encounter.pk, "next"]),
        {"version": encounter.version},
        follow=True,
    )
    assert f"{mine.name} is still choosing how to defend against Bandit" in response.content.decode()
    encounter.refresh_from_db()
    assert encounter.version == version and actor_of(encounter).pk == bandit.pk


# ----- who may answer, and only once --------------------------------------------------------------


def test_another_player_cannot_answer_and_a_stale_or_second_answer_is_refused(
    fivebyfive, gm, player, other_player, client_for, fixed_dice
):
    campaign, encounter, mine, theirs, bandit = fivebyfive
    target = combatant(encounter, mine)
    fixed_dice(2, 3)
    gm_attacks(client_for(gm), encounter, bandit, target)
    before = (FeedEntry.objects.count(), pending(encounter))
    # The other player's panel says who is defending, with no form; a posted answer is refused.
    theirs_page = client_for(other_player).get(theirs.get_absolute_url()).content.decode()
    assert f"Waiting for <bdi>{mine.name}</bdi> to defend." in theirs_page
    assert "defence-dodge_with" not in theirs_page
    response = defend(client_for(other_player), encounter, target, dodge_with="none")
    assert response.status_code == 403
    refusal = f"Only {mine.name}'s player or the GM chooses how {mine.name} defends."
    assert response.content.decode() == refusal
    assert (FeedEntry.objects.count(), pending(encounter)) == before
    # The player answers once; the same answer again (a double click, a second tab) is refused.
    client = client_for(player)
    encounter.refresh_from_db()
    version = encounter.version
    fixed_dice(4)
    assert defend(client, encounter, target, version=version, dodge_with="none").status_code == 200
    count = FeedEntry.objects.count()
    fixed_dice(4)
    again = defend(client, encounter, target, version=version, dodge_with="none")
    assert again.status_code == 422 and "moved on" in again.content.decode()
    fresh = defend(client, encounter, target, dodge_with="none")
    assert fresh.status_code == 422 and "No attack is waiting for a defence now." in fresh.content.decode()
    assert FeedEntry.objects.count() == count


def test_a_token_not_held_is_refused_on_the_field_and_the_defence_still_waits(
    fivebyfive, gm, player, client_for, fixed_dice
):
    campaign, encounter, mine, _, bandit = fivebyfive
    target = combatant(encounter, mine)
    mine.fivebyfive.doubles_token = False
    mine.fivebyfive.save(update_fields=["doubles_token"])
    fixed_dice(2, 3)
    gm_attacks(client_for(gm), encounter, bandit, target)
    auto = pending(encounter)
    fixed_dice(1, 1)
    response = defend(client_for(player), encounter, target, dodge_with="untrained", dodge_token="on")
    assert response.status_code == 422
    assert f"{mine.name} holds no doubles token to spend on the dodge." in response.content.decode()
    assert "Defend:" in response.content.decode() and pending(encounter) == auto


# ----- Triad -----------------------------------------------------------------------------------------


@pytest.fixture
def triad(make_campaign, gm, player, other_player):
    campaign, encounter, mine, theirs, bandit = make_fight(make_campaign, gm, player, other_player, "triad")
    npc_turn(encounter, bandit, gm)
    return campaign, encounter, mine, theirs, bandit


def test_triad_the_defending_player_picks_their_adv_trait(triad, gm, player, client_for, fixed_dice):
    """Triad l.62: a related (Adv.) trait gives advantage on the roll that holds the attack off; the
    defender's player names it, and the line records the odds the prompt showed for it."""
    campaign, encounter, mine, _, bandit = triad
    show_npc_numbers(campaign)  # the odds against the NPC tell its Difficulty
    target = combatant(encounter, mine)
    gm_client, client = client_for(gm), client_for(player)
    before = FeedEntry.objects.count()
    gm_attacks(gm_client, encounter, bandit, target, kind="body")
    assert FeedEntry.objects.count() == before  # nothing rolled yet: the defence is the roll
    assert pending(encounter)["rules"] == {"kind": "body", "disadvantages": 0}
    table = client.get(reverse("table", args=[campaign.pk])).content.decode()
    assert "Defend: <bdi>Bandit</bdi> attacks" in table
    listed = odds_listed(table)
    traits = [(k, v) for k, v in options_of(table, "defence-trait").items() if k]
    assert traits, "the demo character has (Adv.) traits to pick"
    pk, name = traits[0]
    assert "No (Adv.) trait" in listed and name in listed
    fixed_dice(9, 17)
    response = defend(client, encounter, target, trait=pk)
    assert response.status_code == 200
    line = FeedEntry.objects.get(label=f"Ambush: Bandit attacks {mine.name}")
    assert line.author == player and f"({name}" in line.summary
    assert format_percent(Fraction(line.chance)) == listed[name]
    assert [d["face"] for d in line.result["dice"]] == [9, 17]  # advantage: two dice
    assert pending(encounter) is None


def test_triad_extra_effort_on_the_defence_costs_a_point(triad, gm, player, client_for, fixed_dice):
    """Triad l.56-57: a point of the score the attack hurts buys advantage; it goes after the roll."""
    campaign, encounter, mine, _, bandit = triad
    target = combatant(encounter, mine)
    body = mine.triad.body
    gm_attacks(client_for(gm), encounter, bandit, target, kind="body")
    fixed_dice(20, 3)
    defend(client_for(player), encounter, target, extra_effort="on")
    line = FeedEntry.objects.get(label=f"Ambush: Bandit attacks {mine.name}")
    assert "extra effort" in line.summary and "held off" in line.summary
    mine.triad.refresh_from_db()
    assert mine.triad.body == body - 1


def test_triad_the_gm_resolves_without_waiting(triad, gm, client_for, fixed_dice):
    campaign, encounter, mine, _, bandit = triad
    target = combatant(encounter, mine)
    gm_client = client_for(gm)
    gm_attacks(gm_client, encounter, bandit, target)
    assert "Resolve without waiting" in gm_client.get(encounter.get_absolute_url()).content.decode()
    encounter.refresh_from_db()
    fixed_dice(20)
    gm_client.post(
        reverse("encounter_action", args=[campaign.pk, encounter.pk, "defend"]),
        {"version": encounter.version, "defender": target.pk, "defence-trait": ""},
    )
    line = FeedEntry.objects.get(label=f"Ambush: Bandit attacks {mine.name}")
    assert line.author == gm and line.result["dice"][0]["face"] == 20
    assert pending(encounter) is None


def test_the_defence_odds_follow_the_inputs(triad, gm, player, other_player, client_for):
    campaign, encounter, mine, _, bandit = triad
    show_npc_numbers(campaign)  # the odds against the NPC tell its Difficulty
    target = combatant(encounter, mine)
    gm_attacks(client_for(gm), encounter, bandit, target)
    url = reverse("defence_odds", args=[campaign.pk, encounter.pk])
    plain = client_for(player).get(url, {"defence-trait": ""}).content.decode()
    effort = client_for(player).get(url, {"defence-trait": "", "defence-extra_effort": "on"}).content.decode()
    assert "roll-chance" in plain and plain != effort
    assert client_for(other_player).get(url).status_code == 403


# ----- on the wire -----------------------------------------------------------------------------------


@pytest.fixture
def in_memory_layer(settings):
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}


# Transactional: the broadcasts this socket test hears go out on commit.
@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_the_prompt_travels_as_a_bare_refresh(in_memory_layer, make_campaign, gm, player, other_player):
    """The waiting defence names a character and offers choices: none of it goes down a socket."""
    campaign, encounter, mine, theirs, bandit = await sync_to_async(make_fight)(
        make_campaign, gm, player, other_player, "triad"
    )
    await sync_to_async(npc_turn)(encounter, bandit, gm)
    target = await sync_to_async(combatant)(encounter, mine)
    alice, _ = await open_socket(player, campaign, feed=False)
    bob, _ = await open_socket(other_player, campaign, feed=False)
    await sync_to_async(services.encounter_act)(
        encounter=encounter,
        version=encounter.version,
        actor_id=bandit.pk,
        action="attack",
        target_id=target.pk,
        data={},
        prefix="attack",
        roller=roller(),
        author=gm,
    )
    # A defence now waits: every turn panel shows it (the prompt, or whom the fight waits on). The
    # encounter's frame carries only the digest of what every player sees (campaigns.realtime.shows).
    for heard in await frames_before_barrier(campaign.pk, alice, bob):
        assert [{k: v for k, v in frame.items() if k != "shows"} for frame in heard] == [
            {"type": "refresh", "panel": "encounter"},
            {"type": "refresh", "panel": "turn"},
        ]
        assert re.fullmatch("[0-9a-f]{32}", heard[0]["shows"])
    await alice.disconnect()
    await bob.disconnect()
    state = await sync_to_async(lambda: Encounter.objects.get(pk=encounter.pk).state)()
    assert state["defence"]["defender"] == target.pk
