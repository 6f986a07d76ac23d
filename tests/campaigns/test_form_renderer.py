"""The widgets campaigns/form_renderer.py draws in Python are byte for byte what Django's own templates
draw: each kind of widget over awkward values and attributes, then every page with forms a table uses,
drawn with both renderers."""

import datetime
import re
from decimal import Decimal

import pytest
from django import forms
from django.forms.renderers import DjangoTemplates
from django.urls import reverse
from django.utils import timezone
from django.utils.safestring import mark_safe
from django.utils.translation import gettext_lazy
from hypothesis import given
from hypothesis import strategies as st

from campaigns.form_renderer import FormRenderer
from play import encounters
from rules.dice import FixedFaces, Roller
from sheets.demo import load_demo_characters
from sheets.registry import game_systems
from tests.npcs import sample_npc

TEMPLATES, PYTHON = DjangoTemplates(), FormRenderer()
AWKWARD = ["", "plain", 'quote " and \' apostrophe', "<b>&amp;</b>", "  spaced  ", "line\nbreak", "ünï ✓"]
ATTRS = [
    {},
    {"class": "form-control", "required": True, "disabled": False},
    {"data-x": 'say "hi" & <go>', "min": 0, "max": 10, "step": Decimal("0.5"), "autofocus": True},
    {"placeholder": gettext_lazy("Name"), "aria-label": mark_safe("<i>safe</i>")},
]
VALUES = [None, *AWKWARD, 0, 7, -3, 1.5, Decimal("2.50"), mark_safe("<em>kept</em>"), gettext_lazy("lazy")]
CHOICES = [
    ("", "---------"),
    (1, "One"),
    ("two", 'Two "quoted"'),
    ("Group <a>", [(3, "Three"), ("4", mark_safe("<b>Four</b>"))]),
    (Decimal("5.5"), 5.5),
]


def both(widget: forms.Widget, value) -> tuple[str, str]:
    return (
        widget.render("field", value, renderer=TEMPLATES),
        widget.render("field", value, renderer=PYTHON),
    )


INPUTS = [
    forms.TextInput, forms.NumberInput, forms.EmailInput, forms.URLInput, forms.HiddenInput,
    forms.PasswordInput, forms.SearchInput, forms.TelInput, forms.ColorInput, forms.FileInput,
]  # fmt: skip


@pytest.mark.parametrize("widget", INPUTS, ids=lambda widget: widget.__name__)
@pytest.mark.parametrize("attrs", ATTRS, ids=range(len(ATTRS)))
def test_each_input_is_drawn_as_the_template_draws_it(widget, attrs):
    for value in VALUES:
        templated, drawn = both(widget(attrs=attrs), value)
        assert drawn == templated, value


@pytest.mark.parametrize("value", [True, False, None, "", "on", "off"])
def test_a_checkbox_is_drawn_as_the_template_draws_it(value):
    for attrs in ATTRS:
        templated, drawn = both(forms.CheckboxInput(attrs=attrs), value)
        assert drawn == templated


def test_dates_and_times_are_drawn_as_the_template_draws_them():
    moment = datetime.datetime(2026, 12, 3, 7, 45, 12)
    for widget, value in [
        (forms.DateInput(), moment.date()),
        (forms.DateTimeInput(), moment),
        (forms.TimeInput(), moment.time()),
        (forms.DateInput(format="%d/%m/%Y"), moment.date()),
    ]:
        templated, drawn = both(widget, value)
        assert drawn == templated


@pytest.mark.parametrize("widget", [forms.Select, forms.SelectMultiple])
def test_a_select_is_drawn_as_the_template_draws_it(widget):
    for attrs in ATTRS:
        for value in [None, "", 1, "1", "two", [3, "4"], "4", Decimal("5.5"), "unknown", True, False]:
            templated, drawn = both(widget(attrs=attrs, choices=CHOICES), value)
            assert drawn == templated, value


def test_a_yes_no_select_is_drawn_as_the_template_draws_it():
    for value in [None, "", "unknown", True, False, "true", "false", "2", "3"]:
        templated, drawn = both(forms.NullBooleanSelect(), value)
        assert drawn == templated, value


def test_a_select_without_choices_is_drawn_as_the_template_draws_it():
    templated, drawn = both(forms.Select(choices=[]), None)
    assert drawn == templated == '<select name="field">\n</select>'


def test_a_textarea_is_drawn_as_the_template_draws_it():
    for attrs in ATTRS:
        for value in VALUES:
            templated, drawn = both(forms.Textarea(attrs=attrs), value)
            assert drawn == templated, value


def test_widgets_with_templates_of_their_own_still_go_to_them():
    for widget in [forms.RadioSelect(choices=CHOICES), forms.CheckboxSelectMultiple(choices=CHOICES)]:
        templated, drawn = both(widget, "1")
        assert drawn == templated and "<div" in drawn


@given(st.text(), st.text(), st.one_of(st.none(), st.text(), st.integers()))
def test_any_text_is_escaped_as_the_template_escapes_it(name, attribute, value):
    widget = forms.TextInput(attrs={"title": attribute, "data-v": value})
    assert widget.render(name, value, renderer=PYTHON) == widget.render(name, value, renderer=TEMPLATES)
    select = forms.Select(choices=[(attribute, name), (name, attribute)])
    assert select.render(name, value, renderer=PYTHON) == select.render(name, value, renderer=TEMPLATES)


# ----- every page with forms, drawn with both renderers ---------------------------------------------


def normalised(body: bytes) -> str:
    """A page as any request draws it: CSRF tokens and one-time keys blanked."""
    text = re.sub(r'(name="csrfmiddlewaretoken" value=")[^"]+"', r'\1CSRF"', body.decode())
    text = re.sub(r'("x-csrftoken": ")[^"]+"', r'\1CSRF"', text)
    return re.sub(r"\b[0-9a-f]{32}\b", "KEY", text)


@pytest.mark.django_db
@pytest.mark.parametrize("system", [config.label for config in game_systems()])
def test_every_page_with_forms_is_drawn_the_same_by_both(
    system, make_campaign, gm, player, client_for, settings, monkeypatch
):
    now = timezone.now()
    monkeypatch.setattr(timezone, "now", lambda: now)  # both drawings say the same "ago"
    campaign = make_campaign(system, players=[player])
    load_demo_characters(campaign, players=[player])
    character = campaign.characters.get(owner=player)
    fight = encounters.encounter_create(campaign=campaign, name="Both ways")
    encounters.combatant_add_character(encounter=fight, character=character)
    encounters.combatant_add_npc(encounter=fight, name="Foe", cleaned_data=sample_npc(system))
    dice = Roller(FixedFaces([5] * 60))  # the turn order: a face every die has, no 10 to explode
    encounters.encounter_start(encounter=fight, version=fight.version, roller=dice, author=gm)
    pages = [
        (gm, reverse("character_new", args=[campaign.pk])),
        (player, character.get_absolute_url()),
        (gm, character.get_absolute_url()),
        (player, reverse("table", args=[campaign.pk])),
        (gm, fight.get_absolute_url()),
        (player, reverse("sheet_turn", args=[character.pk])),
        (gm, reverse("campaign_detail", args=[campaign.pk])),
    ]
    drawn = {}
    for renderer in ("django.forms.renderers.DjangoTemplates", "campaigns.form_renderer.FormRenderer"):
        settings.FORM_RENDERER = renderer
        drawn[renderer] = [normalised(client_for(user).get(url).content) for user, url in pages]
    templated, python = drawn.values()
    for (_, url), by_templates, in_python in zip(pages, templated, python, strict=True):
        assert "<input" in by_templates or "<select" in by_templates or url.endswith("/turn/"), url
        assert in_python == by_templates, url
