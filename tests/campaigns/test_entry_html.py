"""A feed entry's HTML (campaigns/entry_html.py) escapes every value a player or a stored result put in
it, in every variant and every shape: the label, the names, a term's tag, the comment, the summary, the
changes, a chat line, a hidden roll's pending lines and the apply error."""

import re

import pytest

from campaigns.entry_html import render_entry
from campaigns.models import WHISPER, FeedEntry, Visibility
from campaigns.selectors import FULL, NOTICE, PLAYERS
from campaigns.services import feed_entry_create
from sheets.demo import load_demo_characters

HOSTILE = '<b title="h0stile">&amp;\'"'
ESCAPED = "&lt;b title=&quot;h0stile&quot;&gt;&amp;amp;&#x27;&quot;"

NOTATION = {
    "kind": "expression",
    "notation": "2d6+1",
    "total": 8,
    "outcome": "success",
    "comment": HOSTILE,
    "terms": [
        {
            "kind": "dice",
            "notation": "2d6",
            "sign": 1,
            "bonus": 0,
            "value": 7,
            "label": HOSTILE,
            "dice": [{"faces": [3], "total": 3, "kept": True}, {"faces": [4], "total": 4, "kept": True}],
        },
        {"kind": "constant", "notation": "1", "sign": 1, "bonus": 1, "value": 1},
    ],
}
SHEET = {
    "dice": [{"face": 6, "sides": 6}],
    "outcome": "success",
    "outcome_label": HOSTILE,
    "total": 6,
    "changes": [HOSTILE],
    "players": {"summary": HOSTILE, "changes": [HOSTILE]},
    "pending": {"before": {"sheet:hp": 3}, "after": {"sheet:hp": 2}, "lines": [HOSTILE]},
}


@pytest.fixture
def hostile_names(gm, player):
    for user in (gm, player):
        user.username = f"{user.username}{HOSTILE}"
        user.save(update_fields=["username"])


@pytest.mark.parametrize("variant", [FULL, NOTICE, PLAYERS])
@pytest.mark.parametrize(
    ("kind", "label", "result"),
    [
        ("roll", HOSTILE, NOTATION),
        ("roll", HOSTILE, SHEET),
        ("roll", HOSTILE, None),
        ("chat", f"hi {HOSTILE}", None),
    ],
    ids=["dice-box", "sheet", "summary-only", "chat"],
)
def test_every_value_is_escaped_in_every_variant(
    campaign, gm, player, hostile_names, kind, label, result, variant
):
    load_demo_characters(campaign, players=[player])
    character = campaign.characters.get(owner=player)
    character.name = f"Ann{HOSTILE}"
    entry, _ = feed_entry_create(
        campaign=campaign,
        author=player,
        label=label,
        kind=kind,
        character=character,
        result=result,
        summary=HOSTILE,
        visibility=WHISPER if kind == "chat" else Visibility.PUBLIC,
        recipients=[gm] if kind == "chat" else (),
        request={"emote": True} if kind == "chat" else None,
    )
    entry = FeedEntry.objects.get(pk=entry.pk)
    html = render_entry(entry, variant, apply_error=HOSTILE, csrf_token="token")
    assert "<b " not in html and 'h0stile">' not in html
    # Every hostile value that shows, shows as its text.
    shown = html.count(ESCAPED)
    assert shown >= (1 if variant == NOTICE else 2), html
    assert re.fullmatch(r'<li class="feed-entry feed-\w+( feed-notice)?" id="entry-\w+".*</li>', html, re.S)
