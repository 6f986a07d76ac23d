"""The sheet's parts drawn in Python (sheets/templatetags/sheet_tags.py): the roll buttons and the
in-place fields. Every value a system or a player's sheet puts in them comes out escaped, each posts or
asks at the address ``reverse()`` gives, and a viewer the policy does not let act gets no control."""

import re
from fractions import Fraction
from types import SimpleNamespace

import pytest
from django.template import Context
from django.urls import NoReverseMatch, reverse

from sheets.contract import Bar, Curve, EditableField, RollButton
from sheets.policy import Kind
from sheets.templatetags.sheet_tags import roll_buttons, sheet_field

HOSTILE = '<b onclick="x">&\''  # no slash: a key with one matches no address
SHEET = SimpleNamespace(pk=7)


def test_every_value_is_escaped():
    button = RollButton(
        key="skill:" + HOSTILE,
        label="Sword " + HOSTILE,
        chance=Fraction(1, 3),
        detail="7k3 " + HOSTILE,
        picture=(Bar(HOSTILE, Fraction(1, 2), "success"), Bar("miss", Fraction(1, 2))),
        group="Skills " + HOSTILE,
    )
    html = roll_buttons([button], SHEET, True)
    assert "<b " not in html and 'onclick="x"' not in html
    # The key, the group, the label, the detail, and the bar in the picture's label and its own title;
    # the address quotes it instead.
    assert html.count("&lt;b onclick=&quot;x&quot;&gt;&amp;&#x27;") == 6
    assert "33.3%" in html


@pytest.mark.parametrize("key", ["ability:body", "skill:12", "trait:Medical Expert", "é:ü"])
def test_each_button_posts_where_reverse_says(key):
    html = roll_buttons([RollButton(key=key, label="Roll", chance=None)], SHEET, True)
    (posted,) = re.findall(r'hx-post="([^"]*)"', html)
    assert posted.replace("&amp;", "&") == reverse("sheet_roll", args=(SHEET.pk, key))


def test_a_key_no_address_matches_fails_as_reverse_does():
    with pytest.raises(NoReverseMatch):
        roll_buttons([RollButton(key="a/b", label="Roll", chance=None)], SHEET, True)


def test_consecutive_buttons_share_a_heading_and_a_viewer_who_may_not_roll_gets_disabled_ones():
    buttons = [
        RollButton(key="a", label="A", chance=None, group="Rings"),
        RollButton(key="b", label="B", chance=Fraction(1), group="Rings"),
        RollButton(key="c", label="C", chance=None, group=""),
        RollButton(key="d", label="D", chance=None, group="Rings", picture=Curve(((1, Fraction(1)),), 1)),
    ]
    html = roll_buttons(buttons, SHEET, False)
    assert re.findall(r"<h3[^>]*>([^<]*)</h3>", html) == ["Rings", "Rings"]
    assert html.count('<div class="roll-grid">') == 3
    assert html.count("disabled title=") == 4 and "hx-post" not in html
    assert "<polyline" in html and "100.0%" in html


def test_no_buttons_says_so():
    assert "Nothing to roll with these options." in roll_buttons([], SHEET, True)


def _field(**values):
    return EditableField(**{"path": "name", "label": "Name", "value": "Mina", **values})


def test_a_field_the_viewer_may_type_opens_its_editor_at_its_address():
    field = _field(path="skill:12:rank", label="Rank " + HOSTILE, value=HOSTILE, kind=Kind.PLAY)
    html = sheet_field(Context({"character": SHEET, "writable": {Kind.PLAY}}), field)
    assert "<b " not in html and 'onclick="x"' not in html
    assert html.count("&lt;b onclick=&quot;x&quot;&gt;&amp;&#x27;") == 3  # the label, the value twice
    (asked,) = re.findall(r'hx-get="([^"]*)"', html)
    assert asked == reverse("sheet_field", args=(SHEET.pk, "skill:12:rank")) + "?edit=1"
    assert 'data-path="skill:12:rank"' in html


@pytest.mark.parametrize("writable", [set(), {Kind.GM}, None])
def test_a_field_the_viewer_may_not_type_is_only_its_value(writable):
    values = {"character": SHEET} if writable is None else {"character": SHEET, "writable": writable}
    context = Context(values)
    html = sheet_field(context, _field(value="<i>", kind=Kind.PLAY))
    assert "<button" not in html and "hx-get" not in html
    assert '<span class="editable-value"><bdi>&lt;i&gt;</bdi></span>' in html
