"""Junk in every path parameter and every form field of every URL: never a 500, and nothing saved changes.

Built from the URLconf and from the pages themselves: every named URL pattern (``get_resolver``) is
visited, and each form a page offers (a ``<form>``, or an element with ``hx-post``/``hx-get`` and what it
includes) is sent back with one field, or one path parameter, replaced by each value of ``JUNK``:
digits ``int()`` reads but a player never types ("٣"), digits ``str.isdigit`` passes but ``int()``
refuses ("²", "⑤"), a float, a negative zero, a number past any database integer, and a blank. One world
per game system (a running fight on the player's turn, a roll request, saved rolls, a change to undo)
is built once and used for every request. Below the sweep: the messages and states a refusal leaves
(which the sweep does not read), files that are no character, and the socket's JSON frames.
"""

import json
import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from urllib.parse import parse_qsl, quote, urlsplit

import pytest
from asgiref.sync import sync_to_async
from django.apps import apps
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import Resolver404, URLPattern, URLResolver, get_resolver, resolve, reverse

from campaigns import consumers
from campaigns.forms import CampaignForm
from campaigns.limits import DEFAULT_RATE_LIMITS
from play import encounters
from play import requests as roll_requests
from play.saved_rolls import saved_roll_create
from rules.dice import FixedFaces, Roller
from sheets.demo import load_demo_characters
from sheets.registry import system_for
from sheets.services import character_edit
from tests.conftest import FRAME_WAIT
from tests.npcs import sample_npc

from .campaigns.test_consumers import open_socket
from .conftest import HTMX

JUNK = ["²", "⑤", "٣", "1e9", "-0", "1" + "0" * 30, ""]
SYSTEMS = ["triad", "fivebyfive", "freefall", "l5r"]
HUGE = "9" * 5000
# Free text (a name, a chat line, a dice line) may hold any of the junk; a checkbox reads any value as
# ticked; the idempotency key is a token, not a number. Numbers and ids are what the sweep is about.
NOT_NUMBERS = {"text", "textarea", "search", "password", "email", "url", "checkbox", "file"}
SKIPPED_NAMES = {"csrfmiddlewaretoken", "idempotency_key"}
# Pages the sweep never sends: they sign in or out, or change the account itself.
ACCOUNT = {"login", "logout", "signup", "password_change", "password_change_done"}


# ----- the world: one per system ------------------------------------------------------------------


def world(system, make_campaign, gm, player, other_player):
    campaign = make_campaign(system, players=[player, other_player])
    load_demo_characters(campaign, players=[player, other_player])
    mine = campaign.characters.get(owner=player)
    theirs = campaign.characters.get(owner=other_player)
    fight = encounters.encounter_create(campaign=campaign, name="Ambush")
    encounters.combatant_add_character(encounter=fight, character=mine)
    encounters.combatant_add_character(encounter=fight, character=theirs)
    encounters.combatant_add_npc(encounter=fight, name="Bandit", cleaned_data=sample_npc(system))
    encounters.encounter_start(
        encounter=fight, version=fight.version, roller=Roller(FixedFaces([5] * 60)), author=gm
    )
    for _ in range(10):  # the GM moves the turn on to the player's character
        fight.refresh_from_db()
        actor = encounters.current_actor(fight, encounters.combatants_of(fight))
        if actor.character_id == mine.pk:
            break
        encounters.encounter_next_turn(encounter=fight, version=fight.version, author=gm)
    fields = system_for(campaign).options_form(character=mine).fields
    options = {name: item.initial for name, item in fields.items() if item.initial is not None}
    asked = roll_requests.roll_request_create(
        campaign=campaign, gm=gm, label="Spot", characters=[mine], options=options, visibility="public"
    )
    for character, name in ((None, "Hit"), (mine, "Cut")):
        saved_roll_create(
            campaign=campaign, owner=player, character=character, name=name, line="1d6", visibility="public"
        )
    mine.refresh_from_db()
    character_edit(character=mine, path="notes", raw="A note", version=mine.version, author=player)
    return {
        "campaign_id": campaign.pk,
        "character_id": mine.pk,
        "characters": set(campaign.characters.values_list("pk", flat=True)),
        "encounter_id": fight.pk,
        "combatant_id": fight.combatants.get(name="Bandit").pk,
        "user_id": other_player.pk,
        "change_id": mine.changes.order_by("pk").last().pk,
        "request_id": asked.pk,
        "target_id": asked.targets.get().pk,
        "saved_id": mine.saved_rolls.get().pk,
        "gear_id": 1,
        "token": campaign.invite_token,
        "path": "notes",
        "key": "none",
        "cursor": "0" * 16,
        "kind": "json",
        "verb": "next",
        "attribute": "body",
    }


def pages(ids, gm, player):
    """The pages the sweep starts from, each with the user who sees it; their links are followed once."""
    campaign, character = ids["campaign_id"], ids["character_id"]
    for user in (gm, player):
        yield user, reverse("table", args=[campaign])
        yield user, reverse("sheet", args=[character])
        yield user, reverse("sheet_requests", args=[character])
        yield user, reverse("sheet_saved_rolls", args=[character])
        yield user, reverse("table_saved_rolls", args=[campaign])
        yield user, reverse("dashboard")
    yield gm, reverse("encounter", args=[campaign, ids["encounter_id"]])
    yield gm, reverse("requests_gm", args=[campaign])
    yield player, reverse("sheet_turn", args=[character])


# ----- reading a page's forms -----------------------------------------------------------------------


@dataclass
class Field:
    name: str
    kind: str  # the input's type, or select, textarea, button
    value: str
    low: int | None = None
    high: int | None = None
    required: bool = False
    options: tuple = ()


@dataclass
class Sender:
    """One thing on a page that sends a request: its URL, method and fields as the page would send them."""

    method: str
    url: str
    fields: list = field(default_factory=list)


VOID = {"input", "br", "img", "meta", "link", "hr", "source", "col", "area", "base", "wbr", "embed"}


class Forms(HTMLParser):
    def __init__(self, page_url):
        super().__init__(convert_charrefs=True)
        self.page_url = page_url
        self.stack = []  # [tag, attrs, fields inside]
        self.by_id = {}
        self.senders = []  # (Sender, attrs, fields of the element, enclosing form's fields)
        self.select = None
        self.links = []

    def handle_starttag(self, tag, attrs):
        attrs = {name: value or "" for name, value in attrs}
        if tag == "a" and attrs.get("href", "").startswith("/") and "download" not in attrs:
            self.links.append(attrs["href"])
        here = []
        if tag in ("input", "textarea", "select", "button") and attrs.get("name"):
            kind = attrs.get("type", "text") if tag == "input" else tag
            if tag == "button":
                kind = "button"
            item = Field(
                attrs["name"],
                kind,
                attrs.get("value", ""),
                low=_int(attrs.get("min")),
                high=_int(attrs.get("max")),
                required="required" in attrs,
            )
            sent = not (kind in ("checkbox", "radio") and "checked" not in attrs)
            if sent or kind in ("radio",):
                here.append(item)
                for _, _, inside in self.stack:
                    if not any(f.name == item.name for f in inside):
                        inside.append(item)
            if tag == "select":
                self.select = item
        if tag == "option" and self.select is not None:
            self.select.options += (attrs.get("value", ""),)
            if "selected" in attrs or len(self.select.options) == 1:
                self.select.value = attrs.get("value", "")
        url = attrs.get("hx-post") or attrs.get("hx-get") or (attrs.get("action") if tag == "form" else None)
        if url is not None or tag == "form":
            posts = attrs.get("hx-post") or (tag == "form" and attrs.get("method") == "post")
            method = "post" if posts else "get"
            enclosing = next((inside for t, _, inside in reversed(self.stack) if t == "form"), None)
            self.senders.append((Sender(method, url or self.page_url), attrs, here, enclosing))
        if tag not in VOID:
            self.stack.append([tag, attrs, list(here) if tag in ("select", "button", "textarea") else []])
            if attrs.get("id"):
                self.by_id[attrs["id"]] = self.stack[-1][2]

    def handle_endtag(self, tag):
        if tag == "select":
            self.select = None
        for depth in range(len(self.stack) - 1, -1, -1):
            if self.stack[depth][0] == tag:
                finished = self.stack[depth]
                del self.stack[depth:]
                for _, _, inside in self.stack:
                    inside.extend(f for f in finished[2] if not any(g.name == f.name for g in inside))
                return

    def resolved(self):
        """Every sender with its fields: its own, its form's, and those it names in hx-include."""
        for sender, attrs, here, enclosing in self.senders:
            fields = list(here)
            in_form = attrs.get("hx-include") == "closest form" or sender.method == "post"
            if enclosing is not None and in_form:
                fields += enclosing
            for selector in (attrs.get("hx-include") or "").split(","):
                selector = selector.strip()
                if selector.startswith("#"):
                    fields += self.by_id.get(selector[1:], [])
            for name, value in json.loads(attrs.get("hx-vals") or "{}").items():
                fields.append(Field(name, "hidden", str(value)))
            seen, sender.fields = set(), []
            for item in fields:
                if item.name not in seen:
                    seen.add(item.name)
                    sender.fields.append(item)
            yield sender


def _int(text):
    try:
        return int(text)
    except (TypeError, ValueError):
        return None


def senders_of(client, url):
    response = client.get(url)
    assert response.status_code < 500, url
    parser = Forms(url)
    parser.feed(response.content.decode())
    return list(parser.resolved()), parser.links


def junk_for(item: Field) -> list[str]:
    """The junk this field must refuse: all of it, but what the field reads as a fair value."""
    if item.kind in NOT_NUMBERS or item.name in SKIPPED_NAMES:
        return []
    fair = set()
    optional = item.kind in ("number", "select") and not item.required
    if optional or "" in item.options:
        fair.add("")  # blank: the field's default
    zero_allowed = (item.low is None or item.low <= 0) and (item.high is None or item.high >= 0)
    if item.kind == "number" and zero_allowed:
        fair.add("-0")  # 0, a value this field allows
    return [value for value in JUNK if value not in fair]


# ----- the sweep -------------------------------------------------------------------------------------


def saved_rows() -> dict:
    """Every row the project's apps keep (campaigns, sheets and each system's tables, play)."""
    return {
        model._meta.label: list(model.objects.order_by("pk").values())
        for model in apps.get_models()
        if model.__module__.split(".")[0] in {"campaigns", "sheets", "play"}
    }


def url_patterns(patterns=None):
    for pattern in get_resolver().url_patterns if patterns is None else patterns:
        if isinstance(pattern, URLResolver):
            if pattern.namespace != "admin":
                yield from url_patterns(pattern.url_patterns)
        elif isinstance(pattern, URLPattern) and pattern.name and pattern.name not in ACCOUNT:
            yield pattern


class Sweep:
    def __init__(self, clients):
        self.clients = clients
        self.failures = []
        self.requests = 0
        # The rows as the last batch left them: nothing but a batch writes between two batches, so each
        # batch's rows after are the next one's before, and the rows are read once per batch, not twice.
        # None when a new world was just made.
        self.rows = None

    def batch(self, label, sends):
        """Send (user, method, url, data) each; none may answer 500, and the rows must be as they were."""
        if not sends:
            return
        before = saved_rows() if self.rows is None else self.rows
        for user, method, url, data in sends:
            response = getattr(self.clients[user], method)(url, data)
            self.requests += 1
            if response.status_code >= 500:
                self.failures.append(f"{response.status_code} {method.upper()} {url} {data}")
        self.rows = saved_rows()
        if self.rows != before:
            self.failures.append(f"rows changed: {label}")


def junk_path_values(value, *, whole: bool) -> list[str]:
    """Each junk value in place of a path parameter (``whole``), or in place of each number inside it."""
    text = str(value)
    made = [quote(junk) for junk in JUNK] if whole else []
    for number in () if text.isdecimal() else re.finditer(r"[0-9]+", text):
        made += [quote(text[: number.start()] + junk + text[number.end() :]) for junk in JUNK]
    return made


def base_data(sender):
    data = dict(parse_qsl(urlsplit(sender.url).query))
    for item in sender.fields:
        data.setdefault(item.name, item.value)
    return data


def quiet_client(user):
    """A client that answers a view's exception as the 500 a browser would get, so every one is listed."""
    client = Client(raise_request_exception=False)
    client.force_login(user)
    return client


# Every URL without a form on the world's pages: pages and fragments that read only their path (and
# the feed's cursor, swept below), and forms this world does not show. Their paths are swept all the same.
READ_ONLY = {
    "landing", "dashboard", "campaign_detail", "table", "table_feed", "table_party", "encounter",
    "encounter_panel", "turn_panel", "sheet", "sheet_turn", "sheet_history", "sheet_export",
    "sheet_history_export", "sheet_recent", "sheet_requests",
}  # fmt: skip
NOT_IN_THE_WORLD = {
    "campaign_join",  # the invite's form is for someone not yet seated
    "freefall_repair",  # gear broken in play
    "l5r_after_roll",  # drawn under a roll's result
    "l5r_rekeep_choice",
    "sheet_roll_apply",  # drawn under a roll's result
    "fivebyfive_heal",  # a wounded Five by Five sheet's healing check
    "request_result",  # once characters have answered
    "turn_defend",  # an NPC's attack waiting on the player's defence
    "defence_odds",
    "portrait_remove",  # a sheet with a portrait
    "npc_portrait_remove",  # a quick NPC with a portrait
}


def gather(clients, ids, gm, player):
    """(user, sender) for every form on the world's pages, the pages their links lead to (once per URL
    name and user) and the in-place editors the sheet opens."""
    senders, links, visited = [], [], set()
    for user, url in pages(ids, gm, player):
        found, more = senders_of(clients[user], url)
        senders += [(user, sender) for sender in found]
        links += [(user, link) for link in more]
        visited.add((user, resolve(urlsplit(url).path).url_name))
    for user, link in links:
        match = resolve(urlsplit(link).path)
        name, where = match.url_name, match.kwargs
        if where.get("campaign_id", ids["campaign_id"]) != ids["campaign_id"]:
            continue  # the dashboard lists the other systems' worlds too
        if where.get("character_id", ids["character_id"]) not in ids["characters"]:
            continue
        if (user, name) not in visited and name not in ACCOUNT:
            visited.add((user, name))
            found, more = senders_of(clients[user], link)
            senders += [(user, sender) for sender in found]
            links += [(user, link) for link in more]
    for user, sender in list(senders):
        if sender.method == "get" and resolve(urlsplit(sender.url).path).url_name == "sheet_field":
            senders += [(user, more) for more in senders_of(clients[user], sender.url)[0]]
    matched = []
    for user, sender in senders:
        try:
            match = resolve(urlsplit(sender.url).path)
        except Resolver404:
            continue
        if match.url_name not in ACCOUNT:
            matched.append((user, sender, match))
    return matched


def sweep_fields(sweep, senders, covered):
    """Each field of each form, with each junk value it must refuse; a field once per URL name."""
    for user, sender, match in senders:
        path, data = urlsplit(sender.url).path, base_data(sender)
        sends = []
        for item in sender.fields:
            key = (match.url_name, sender.method, item.name, item.kind)
            if key not in covered:
                covered.add(key)
                sends += [(user, sender.method, path, {**data, item.name: value}) for value in junk_for(item)]
        sweep.batch(f"{sender.method.upper()} {path}", sends)


def sweep_paths(sweep, patterns, senders, ids, gm):
    """Each path parameter of every URL, on a URL of this world, by the user and method of a form that
    posts there (else the GM's, both ways); and each number inside a text parameter ("skill:12:rank"),
    once for each shape of it the pages offer."""
    first, shapes = {}, {}
    for user, sender, match in senders:
        first.setdefault(match.url_name, (user, sender, match))
        shape = tuple(re.sub("[0-9]+", "#", str(value)) for value in match.kwargs.values())
        if any("#" in part for part in shape):
            shapes.setdefault((match.url_name, shape), (user, sender, match))
    for pattern in patterns:
        found = [first.get(pattern.name) or (gm, None, None)]
        found += [found for (name, _), found in shapes.items() if name == pattern.name]
        for index, (user, sender, match) in enumerate(found):
            kwargs = dict(match.kwargs) if match else {name: ids[name] for name in pattern.pattern.converters}
            data = base_data(sender) if sender else {}
            methods = [sender.method] if sender else ["get", "post"]
            sends = []
            for name, value in kwargs.items():
                for junked in junk_path_values(value, whole=index == 0):
                    url = reverse(pattern.name, kwargs={**kwargs, name: 987654321})
                    url = url.replace("987654321", junked)
                    try:
                        resolve(url)
                    except Resolver404:
                        continue  # no view runs: 404 by the URLconf itself
                    sends += [(user, method, url, data) for method in methods]
            sweep.batch(f"{pattern.name} path {kwargs}", sends)


@pytest.mark.long
def test_junk_in_every_path_parameter_and_form_field_is_refused(
    make_campaign, gm, player, other_player, settings
):
    settings.TABLE_RATE_LIMITS = dict.fromkeys(DEFAULT_RATE_LIMITS, (10**9, 60))  # thousands of requests
    patterns = list(url_patterns())
    sweep = Sweep({gm: quiet_client(gm), player: quiet_client(player)})
    covered, with_forms = set(), set()
    for system in SYSTEMS:
        ids = world(system, make_campaign, gm, player, other_player)
        senders = gather(sweep.clients, ids, gm, player)
        sweep.rows = None
        with_forms |= {match.url_name for _, _, match in senders}
        sweep_fields(sweep, senders, covered)
        sweep_paths(sweep, patterns, senders, ids, gm)
    assert not sweep.failures, "\n".join(sweep.failures)
    assert {pattern.name for pattern in patterns} - with_forms == READ_ONLY | NOT_IN_THE_WORLD


# ----- what a refusal shows and keeps (the sweep reads only the status and the rows) ------------------


def assert_refused(client, method: str, url: str, data=None, **extra):
    before = saved_rows()
    response = getattr(client, method)(url, data or {}, **extra)
    assert response.status_code < 500, (url, data)
    assert saved_rows() == before, (url, data)
    return response


@pytest.fixture
def triad(make_campaign, player, other_player):
    campaign = make_campaign("triad", players=[player, other_player])
    load_demo_characters(campaign, players=[player, other_player])
    return campaign


@pytest.fixture
def encounter(triad, gm):
    """A Triad fight set up but not started: one player character and a ghoul; one character waits."""
    helsing = triad.characters.get(name="Abraham Van Helsing")
    fight = encounters.encounter_create(campaign=triad, name="Crypt")
    encounters.combatant_add_character(encounter=fight, character=helsing)
    encounters.combatant_add_npc(encounter=fight, name="Ghoul", cleaned_data=sample_npc("triad"))
    return fight


@pytest.fixture
def running(encounter, gm):
    encounters.encounter_start(
        encounter=encounter, version=encounter.version, roller=Roller(FixedFaces([3])), author=gm
    )
    encounter.refresh_from_db()
    return encounter


def verb_url(fight, verb):
    return reverse("encounter_action", args=[fight.campaign_id, fight.pk, verb])


def combatant(fight, name):
    return fight.combatants.get(name=name)


# ----- encounters -------------------------------------------------------------------------------


def test_a_refused_field_is_named(encounter, gm, client_for):
    response = client_for(gm).post(
        verb_url(encounter, "add-character"), {"version": encounter.version, "character": "²"}, follow=True
    )
    assert "Check the character: Character: That choice is not valid." in response.content.decode()
    response = client_for(gm).post(
        verb_url(encounter, "add-npc"),
        {"version": encounter.version, "name": "", "npc-difficulty": "NaN", "npc-armor": "light"},
    )
    page = response.content.decode()
    # Each message sits under its own field, which is outlined and points at it; the typed text stays.
    assert response.status_code == 200
    assert 'id="id_name-error"' in page and "This field is required." in page
    assert 'id="id_npc-difficulty-error"' in page and 'value="NaN"' in page
    assert 'aria-describedby="id_npc-difficulty-error' in page


def test_a_stale_npc_form_keeps_the_typing_and_takes_the_new_version(encounter, gm, client_for):
    gm_client = client_for(gm)
    data = {"version": encounter.version + 5, "name": "Ghast", "npc-difficulty": "10", "npc-armor": "light"}
    response = assert_refused(gm_client, "post", verb_url(encounter, "add-npc"), data)
    page = response.content.decode()
    assert "The encounter moved on" in page and 'value="Ghast"' in page
    assert f'name="version" value="{encounter.version}"' in page
    retry = gm_client.post(verb_url(encounter, "add-npc"), {**data, "version": encounter.version})
    assert retry.status_code == 302 and encounter.combatants.filter(name="Ghast").exists()


def test_an_htmx_npc_refusal_is_422_with_the_controls(encounter, gm, client_for):
    data = {"version": encounter.version, "name": "Ghast", "npc-difficulty": "NaN", "npc-armor": "light"}
    response = assert_refused(client_for(gm), "post", verb_url(encounter, "add-npc"), data, **HTMX)
    page = response.content.decode()
    assert response.status_code == 422 and 'id="encounter-controls"' in page and "<html" not in page
    assert 'value="Ghast"' in page


def test_an_action_form_is_read_under_its_prefix(running, gm, client_for):
    """An unprefixed field is not the action's: the attack reads only ``attack-ability``."""
    actor = combatant(running, "Abraham Van Helsing")
    ghoul = combatant(running, "Ghoul")
    data = {
        "version": running.version,
        "actor": actor.pk,
        "action": "attack",
        "target": ghoul.pk,
        "ability": "body",
    }
    response = assert_refused(client_for(gm), "post", verb_url(running, "act"), data, follow=True)
    assert "Check the options of Attack: Ability (the GM&#x27;s call): This field is required." in (
        response.content.decode()
    )


@pytest.fixture
def helsing(triad, player):
    return triad.characters.get(owner=player)


def test_sheet_edit_with_a_junk_version_is_refused_as_stale(helsing, player, client_for):
    url = reverse("sheet_field", args=[helsing.pk, "name"])
    client = client_for(player)
    for junk in JUNK:
        response = assert_refused(client, "post", url, {"value": "Renamed", "version": junk}, **HTMX)
        assert response.status_code == 409, junk
        if junk == "-0":
            continue  # 0 beside the current version: an old version the newer one outranks
        # Two versions (the form's and the page's): one junk one makes the pair unreadable.
        data = {"value": "Renamed", "version": [str(helsing.version), junk]}
        assert assert_refused(client, "post", url, data, **HTMX).status_code == 409, junk


def test_feed_pages_read_junk_as_the_newest(triad, player, client_for):
    url = reverse("table_feed", args=[triad.pk])
    for junk in JUNK:
        assert assert_refused(client_for(player), "get", url, {"before": junk}).status_code == 200, junk


def test_undo_of_another_sheets_change_is_refused(helsing, triad, player, gm, client_for):
    other = triad.characters.exclude(pk=helsing.pk).first()
    character_edit(character=other, path="notes", raw="New notes", version=other.version, author=gm)
    change = other.changes.get()
    url = reverse("sheet_undo", args=[helsing.pk, change.pk])
    assert assert_refused(client_for(player), "post", url).status_code == 404


def _export(client, character) -> dict:
    return json.loads(client.get(reverse("sheet_export", args=[character.pk])).content)


def _bad_exports(good: dict) -> list[bytes]:
    sheet = good["sheet"]
    as_json = [
        {**good, "name": {"first": "Abraham"}},
        {**good, "name": ["Abraham"]},
        {**good, "notes": {"a": 1}},
        {**good, "sheet": {**sheet, "body": {"value": 8}}},
        {**good, "sheet": {**sheet, "body": [8]}},
        {**good, "sheet": {**sheet, "body": 10**40}},
        {**good, "sheet": {**sheet, "traits": [{"name": "Occult"}]}},
        {**good, "sheet": {**sheet, "weapon": ["light"]}},
        {**good, "sheet": [sheet]},
        {**good, "version": [1]},
        {**good, "system": {"key": "triad"}},
        [good],
        "a character",
    ]
    encoded = [json.dumps(item).encode() for item in as_json]
    text = json.dumps(good)
    encoded += [
        text.replace('"body": 8', '"body": NaN').encode(),
        text.replace('"body": 8', '"body": Infinity').encode(),
        text.replace('"body": 8', '"body": 1e999').encode(),
        text.replace('"body": 8', f'"body": {HUGE}').encode(),
        text.replace('"version": 2', '"version": NaN').encode(),
        text.encode("utf-16"),
        b"\xff\xfe\x00junk",
        b"",
        b"[" * 100_000,
        b"{" + b" " * 70_000 + b"}",
    ]
    return encoded


def test_import_refuses_bad_files(helsing, player, client_for, settings):
    settings.TABLE_RATE_LIMITS = {"import": (100, 60)}  # more files than the import limit allows a minute
    client = client_for(player)
    good = _export(client, helsing)
    assert good["sheet"]["body"] == 8  # the replacements below hit this number
    url = reverse("character_import", args=[helsing.campaign_id])
    for content in _bad_exports(good):
        upload = SimpleUploadedFile("c.json", content, content_type="application/json")
        response = assert_refused(client, "post", url, {"file": upload}, follow=True)
        shown = [str(m) for m in response.context["messages"]]
        assert len(shown) == 1 and shown[0].startswith("That "), (content[:80], shown)
        assert "{'" not in shown[0] and len(shown[0]) < 400, shown  # no Python repr, no flood
    assert_refused(client, "post", url, {})  # no file at all


def test_imported_nested_values_are_refused_by_name(helsing, player, client_for):
    client = client_for(player)
    good = _export(client, helsing)
    content = json.dumps({**good, "name": {"first": "Abraham"}}).encode()
    upload = SimpleUploadedFile("c.json", content, content_type="application/json")
    response = client.post(
        reverse("character_import", args=[helsing.campaign_id]), {"file": upload}, follow=True
    )
    text = response.content.decode()
    assert "values of the wrong kind" in text and "Name: a list or object" in text


@pytest.fixture
def larry(make_campaign, player, other_player):
    campaign = make_campaign("fivebyfive", players=[player, other_player])
    load_demo_characters(campaign, players=[player, other_player])
    character = campaign.characters.get(owner=player)
    sheet = character.fivebyfive
    sheet.xp = 30  # enough to raise anything, so only the junk can stop it
    sheet.save(update_fields=["xp"])
    return character


def test_xp_award_at_the_bounds(larry, gm, client_for):
    award = reverse("xp_award", args=[larry.pk])
    for amount in ("0", "21", "-5", "999999"):
        assert_refused(client_for(gm), "post", award, {"amount": amount})
    client_for(gm).post(award, {"amount": "2"})
    larry.fivebyfive.refresh_from_db()
    assert larry.fivebyfive.xp == 32


# ----- the campaign -----------------------------------------------------------------------------


@pytest.mark.parametrize("junk", ["", "x" * 5000])
def test_campaign_edit_refuses_a_bad_name(triad, gm, client_for, junk):
    url = reverse("campaign_edit", args=[triad.pk])
    options = [name for name in CampaignForm(instance=triad).fields if name.startswith("option_")]
    data = {"name": junk, "description": "", **dict.fromkeys(options, "²")}
    assert assert_refused(client_for(gm), "post", url, data).status_code == 200


# ----- the table's websocket: JSON frames ---------------------------------------------------------

SOCKET_FRAMES = [
    # Rolls and chat go over HTTP (their junk: test_dice_box_and_chat_refuse_junk); the socket takes none.
    {"type": "roll", "notation": "1d6"},
    {"type": "chat", "text": "hello", "key": "key-12345678"},
    {"type": "chat", "text": float("nan"), "key": ["k"]},
    *(
        {"type": "hello", "cursor": cursor}
        for cursor in (10**30, -1, float("nan"), [0], {"seq": 0}, "0", "g" * 16, "F" * 16, "0" * 17)
    ),
    *({"type": "hello", "cursor": None, "feed": feed} for feed in ("no", 0, None, [False])),
    {"type": ["roll"]},
    {"type": {"roll": 1}},
    [{"type": "roll", "notation": "1d6"}],
]


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
@pytest.mark.parametrize("frame", SOCKET_FRAMES, ids=lambda frame: json.dumps(frame)[:60])
async def test_socket_frames_with_junk_are_refused(campaign, player, settings, frame):
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    before = await sync_to_async(saved_rows)()
    greeting = isinstance(frame, dict) and frame.get("type") == "hello"
    communicator, _ = await open_socket(player, campaign, hello=None if greeting else 0)
    await communicator.send_to(text_data=json.dumps(frame))  # NaN and 1e999 go out as NaN and Infinity
    output = await communicator.receive_output(timeout=FRAME_WAIT)
    if output["type"] == "websocket.close":
        assert output.get("code") == consumers.CLOSE_BAD_MESSAGE
    else:
        reply = json.loads(output["text"])
        if greeting and reply["type"] == "ready":
            pass  # a well-formed hello: nothing to replay
        else:
            assert reply["type"] == "error" and reply["message"], reply
    assert await sync_to_async(saved_rows)() == before
    await communicator.disconnect()
