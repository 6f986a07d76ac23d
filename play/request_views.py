"""Roll requests: the GM asks from the table, players answer from their sheets."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.shortcuts import get_object_or_404, redirect
from django.template.loader import render_to_string
from django.template.response import TemplateResponse
from django.views.decorators.http import require_POST

from campaigns.forms import VisibilityField, compact
from campaigns.models import Visibility
from campaigns.selectors import campaign_for_gm, entry_variant_for
from rules.dice import Roller, RulesError, system_random
from sheets import selectors
from sheets.history import load_sheet_rows
from sheets.registry import system_for

from . import requests as roll_requests
from .forms import AnswerForm, IdsChoiceField
from .models import RollRequest


class RequestForm(forms.Form):
    label = forms.CharField(
        max_length=120, initial="Roll", help_text="What you ask for, e.g. “Spot the ambush”."
    )
    characters = IdsChoiceField(
        queryset=None,
        widget=forms.CheckboxSelectMultiple,
        error_messages={"required": "Pick at least one character."},
    )
    roll_key = forms.ChoiceField(label="What to roll", required=False)
    # Not "Only me": a request is the GM asking for the answer, which "Only me" would hide from the GM.
    visibility = VisibilityField(
        label="Who sees it",
        leave_out=[Visibility.SELF],
        # Worded for the GM who asks; the stored labels speak as the one who rolls ("I don't").
        relabel={Visibility.BLIND: "Blind (you see it, the player does not)"},
    )

    def __init__(self, *args, campaign, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["characters"].queryset = campaign.characters.order_by("is_npc", "name")
        self.fields["roll_key"].choices = [("", "The player picks")] + list(
            system_for(campaign).common_roll_keys()
        )


class ResultForm(forms.Form):
    """Whom a request's group result goes to. A hidden request's goes to everyone only with ``confirm``
    naming its kind ("blind", "gm": the box the panel ticks); else to the GM alone."""

    audience = forms.ChoiceField(choices=[("gm", "The GM"), ("everyone", "Everyone")], required=False)
    confirm = forms.CharField(max_length=10, required=False)


def _gm_panel_context(campaign, *, form=None, options_form=None, error=""):
    return {
        "campaign": campaign,
        "form": form or RequestForm(campaign=campaign),
        "options_form": options_form or compact(system_for(campaign).options_form(character=None, data=None)),
        "requests": [
            {
                "request": asked,
                "tally": roll_requests.tally(asked),
                "hidden": roll_requests.HIDDEN_WORDS.get(asked.visibility, ""),
            }
            for asked in roll_requests.requests_for_gm(campaign)
        ],
        "error": error,
    }


def _gm_panel(request, campaign, *, form=None, options_form=None, error="", status=200):
    context = _gm_panel_context(campaign, form=form, options_form=options_form, error=error)
    return TemplateResponse(request, "play/_requests_gm.html", context, status=status)


def table_requests_panel(request, *, campaign):
    """The GM's roll-request panel on the table page; a player's own prompts there, one panel for each
    of their characters, answered as on the sheet (a player who keeps the table open sees them too)."""
    if campaign.is_gm(request.user):
        return render_to_string("play/_requests_gm.html", _gm_panel_context(campaign), request=request)
    characters = campaign.characters.filter(owner=request.user, is_npc=False).order_by("name", "pk")
    template = "play/_requests_sheet.html"
    return "".join(
        render_to_string(template, {**_prompts(request, c), "on_table": True}, request=request)
        for c in characters
    )


def requests_gm(request, campaign_id: int):
    campaign = campaign_for_gm(request.user, campaign_id)
    if request.method != "POST":
        return _gm_panel(request, campaign)
    form = RequestForm(request.POST, campaign=campaign)
    options_data = _options_data(campaign, request.POST)
    options_form = compact(system_for(campaign).options_form(character=None, data=options_data))
    if not (form.is_valid() & options_form.is_valid()):
        return _gm_panel(request, campaign, form=form, options_form=options_form, status=422)
    try:
        roll_requests.roll_request_create(
            campaign=campaign,
            gm=request.user,
            label=form.cleaned_data["label"],
            characters=form.cleaned_data["characters"],
            options=_plain(options_form.data),
            roll_key=form.cleaned_data["roll_key"],
            visibility=form.cleaned_data["visibility"],
        )
    except (roll_requests.RequestError, ValidationError) as refused:
        form.add_error(None, str(refused))
        return _gm_panel(request, campaign, form=form, options_form=options_form, status=422)
    return _gm_panel(request, campaign)


@require_POST
def request_result(request, campaign_id: int, request_id: int):
    """The GM sends a request's group result: one feed entry, however many clicks. A hidden request's
    goes to the GM alone, or to everyone when the post carries the confirmation naming it."""
    campaign = campaign_for_gm(request.user, campaign_id)
    asked = get_object_or_404(RollRequest, pk=request_id, campaign=campaign)
    form = ResultForm(request.POST)
    chosen = form.cleaned_data if form.is_valid() else {}
    to_everyone = chosen.get("audience") == "everyone"
    try:
        if to_everyone and roll_requests.is_hidden(asked) and chosen.get("confirm") != asked.visibility:
            word = roll_requests.HIDDEN_WORDS[asked.visibility]
            raise roll_requests.RequestError(
                f"Tick “Everyone at the table reads each {word} result” to send the {word} results to "
                "everyone; nothing was sent."
            )
        roll_requests.roll_request_send_result(request=asked, gm=request.user, to_everyone=to_everyone)
    except roll_requests.RequestError as refused:
        if not request.htmx:
            messages.error(request, str(refused))
            return redirect("table", campaign.pk)
        return _gm_panel(request, campaign, error=str(refused), status=422)
    if not request.htmx:
        messages.success(request, "The group result is in the feed.")
        return redirect("table", campaign.pk)
    return _gm_panel(request, campaign)


def _options_data(campaign, post):
    """The options as the GM typed them; a field left out takes the sheet's default."""
    defaults = system_for(campaign).options_form(character=None).fields
    data = {
        name: "" if field.initial is None else str(field.initial)
        for name, field in defaults.items()
        if not isinstance(field.widget, forms.CheckboxInput)
    }
    data.update({key: post.get(key) for key in post if key in defaults})
    return data


def _plain(data) -> dict:
    # Stored as typed and validated again by the options form when each player answers.
    return {key: value for key, value in data.items() if isinstance(value, str) and len(value) <= 100}


def _prompts(request, character):
    prompts, answered = [], []
    if character.can_edit(request.user):
        system = system_for(character.campaign)
        waiting, answers = roll_requests.requests_for_sheet(character)
        if waiting:
            load_sheet_rows(character)  # each prompt's buttons read them: once, not once per prompt
        for target in waiting:
            asked = target.request
            form = system.options_form(character=character, data=asked.options)
            fits = form.is_valid()
            buttons = system.request_buttons(character, asked.roll_key, form.cleaned_data) if fits else []
            # Why the GM's options do not fit this sheet (more dice than its pool, raises past its Void).
            problems = [] if fits else [str(error) for errors in form.errors.values() for error in errors]
            prompts.append({"target": target, "request": asked, "buttons": buttons, "problems": problems})
        # The sheet keeps showing each answer until the GM closes the request, as the feed shows it to
        # this viewer: a blind request's answer only as the notice that the roll was made.
        for target in answers:
            variant = entry_variant_for(request.user, target.entry, character.campaign)
            if variant:
                mine = target.entry.author_id == request.user.pk
                answered.append({"target": target, "entry": target.entry, "variant": variant, "mine": mine})
    return {"character": character, "prompts": prompts, "answered": answered}


def sheet_requests_panel(request, *, campaign, character):
    """The GM's requests waiting on a sheet, rendered with the sheet page."""
    return render_to_string("play/_requests_sheet.html", _prompts(request, character), request=request)


def sheet_requests(request, character_id: int):
    """The prompts waiting on this sheet, each with the buttons that answer it."""
    character = selectors.character_for_viewer(request.user, character_id)
    return TemplateResponse(request, "play/_requests_sheet.html", _prompts(request, character))


@require_POST
def sheet_request_roll(request, character_id: int, target_id: int):
    character = selectors.character_for_editor(request.user, character_id)
    error = ""
    answer = AnswerForm(request.POST)
    if not answer.is_valid():  # no key, or longer than any roll button's
        error = "That is not something this sheet can roll."
    else:
        try:
            roll_requests.roll_request_answer(
                character=character,
                target_id=target_id,
                key=answer.cleaned_data["key"],
                roller=Roller(system_random()),
                author=request.user,
            )
        except KeyError:
            error = "That is not something this sheet can roll."
        except (roll_requests.RequestError, ValidationError, RulesError) as refused:
            error = " ".join(refused.messages) if isinstance(refused, ValidationError) else str(refused)
    if error:
        # A refused answer was rolled back, but the system may have touched the rows in memory first.
        character = selectors.character_for_viewer(request.user, character_id)
    # Otherwise the answer left the character current (its version, its rows): the prompts draw from it.
    response = TemplateResponse(request, "play/_requests_sheet.html", _prompts(request, character))
    response.context_data["error"] = error
    if error:
        response.status_code = 422
    return response
