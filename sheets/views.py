"""Thin views over the sheet: parse, call a service or the system, render a page or a partial."""

from __future__ import annotations

import uuid

from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect
from django.template.loader import render_to_string
from django.template.response import TemplateResponse
from django.utils.text import slugify
from django.views.decorators.http import require_http_methods, require_POST

from campaigns import cursors, hooks
from campaigns.forms import compact
from campaigns.models import FeedEntry
from campaigns.rendering import drawn_digest
from campaigns.selectors import FULL, campaign_for_gm, campaign_for_member, entry_variant_for
from rules.dice import Roller, RulesError, system_random

from . import edit, history, policy, selectors, services, transfer
from .forms import (
    STALE_MESSAGE,
    VERSION_FIELD,
    CharacterImportForm,
    RollVisibilityForm,
    as_posted,
    seen_version,
)
from .models import Character, StaleVersion
from .registry import system_for

PARTS = "sheets/_parts.html"
TYPED_ECHO_LIMIT = 5000  # above every text field's limit, so a refused text comes back whole


def _options(system, character, data):
    """The options form and its cleaned values (None when invalid); defaults when ``data`` has none."""
    if data is not None:
        form = compact(system.options_form(character=character, data=data))
        if any(name in data for name in form.fields):
            return form, (form.cleaned_data if form.is_valid() else None)
    form = compact(system.options_form(character=character))
    return form, {name: field.initial for name, field in form.fields.items()}


def _buttons_drawn(character, options) -> str:
    """What the roll buttons are drawn from: the sheet's values (as History snapshots them, from the rows
    the character's caches hold), its campaign's options and the roll options; a system's ``buttons``
    and ``roll_summary`` read nothing else. The buttons carry it and a roll sends it back
    (sheets/_parts.html), so the answer can tell that the page's buttons are still right. Not the
    version: every roll seen whole moves it, most without changing a value.
    """
    # The options as the page posts them: the sheet's first drawing (the form's initial values) and a
    # roll sending those same choices back (cleaned, other types) then read alike.
    posted = None if options is None else as_posted(options)
    # The name and the notes are no button's (contract.SheetSystem.buttons): an edit of them leaves the
    # buttons alone.
    values = history.snapshot(character, reread=False, own_row=False)
    return drawn_digest([values, character.campaign.options, posted])


def _sheet_context(
    request, character, *, options_data=None, panels=True, page_buttons=None, options_read=None
):
    """What the sheet and its partials show. ``panels=False`` for a partial that shows none of them.

    ``page_buttons``: what the page's roll buttons were drawn from (:func:`_buttons_drawn`), where a
    partial redraws them only if they changed; ``redraw_buttons`` says whether they did. When they did
    not, nothing the sheet shows moved either (the sheet's values are what they were drawn from), so
    the sheet's own parts are left out: a system's out-of-band parts would repeat what the page shows.

    ``options_read``: the (form, options) :func:`_options` gave for ``options_data`` before a roll. If
    the buttons stay, the sheet's values are the ones the page's options were read against, so they
    read the same; if not, the roll may have changed what the form offers, and they are read again.

    The system rows are fetched once here (one query per table); the system's context and buttons
    read them from the character's caches.
    """
    history.load_sheet_rows(character)
    system = system_for(character.campaign)
    form, options = options_read or _options(system, character, options_data)
    drawn = _buttons_drawn(character, options)
    redraw = drawn != page_buttons
    if redraw and options_read is not None:
        form, options = _options(system, character, options_data)
        drawn = _buttons_drawn(character, options)
        redraw = drawn != page_buttons
    # Options the form refuses price nothing: the buttons wait for options they can be priced with.
    draw = redraw and options is not None
    context = {
        "character": character,
        "campaign": character.campaign,
        "system": system,
        "can_edit": character.can_edit(request.user),
        "is_gm": character.campaign.is_gm(request.user),
        "options_form": form,
        "buttons": system.buttons(character, options) if draw else [],
        "roll_summary": system.roll_summary(character, options) if draw else None,
        "buttons_drawn": drawn,
        "redraw_buttons": redraw,
        "writable": policy.writable_kinds(request.user, character),
        "roll_key": uuid.uuid4().hex,
        "panels": hooks.render_panels(hooks.SHEET, request, campaign=character.campaign, character=character)
        if panels
        else "",
    }
    if redraw:
        context.update(
            visibility_form=compact(RollVisibilityForm()),
            name_field=edit.base_field(character, "name"),
            notes_field=edit.base_field(character, "notes"),
            **_xp_context(request, system, character),
            **system.context(character),
        )
    return context


def _xp_context(request, system, character):
    """What the experience panel (sheets/_xp.html) shows; nothing for a system without XP."""
    xp = system.xp(character)
    if xp is None:
        return {"xp": None}
    spends = system.xp_spends(character) if policy.may_spend_xp(request.user, character) else []
    return {
        "xp": xp,
        "xp_award_max": system.xp_award_max,
        "xp_spends": spends,
        "xp_needs_name": any(offer.needs_name for offer in spends),
    }


def _field(character, path):
    try:
        return edit.editable_field(character, path)
    except KeyError:
        raise Http404("No such value on this sheet.") from None


def character_new(request, campaign_id: int):
    campaign = campaign_for_member(request.user, campaign_id)
    system = system_for(campaign)
    is_gm = campaign.is_gm(request.user)
    data = request.POST if request.method == "POST" else None
    sample = request.POST.get("sample") if data is not None else None
    if sample:
        # Only the samples this campaign's rules accept are offered, and only they are built.
        if sample not in system.sample_characters(campaign):
            raise Http404("No such sample character.")
        data = system.sample_form_data(sample)
    form = system.builder_form(campaign=campaign, data=data)
    if data is not None and form.is_valid():
        character = services.character_create(
            campaign=campaign,
            owner=request.user,
            cleaned_data=form.cleaned_data,
            is_npc=is_gm and request.POST.get("is_npc") == "on",
        )
        messages.success(request, f"{character.name} is ready to play.")
        return redirect(character)
    if sample and form.errors:
        messages.error(
            request,
            "That sample character could not be built: "
            + "; ".join(str(e) for errors in form.errors.values() for e in errors),
        )
    return TemplateResponse(
        request,
        system.builder_template,
        {
            "campaign": campaign,
            "system": system,
            "form": form,
            "is_gm": is_gm,
            "samples": system.sample_characters(campaign),
        },
    )


def sheet(request, character_id: int):
    character = selectors.character_for_viewer(request.user, character_id)
    return TemplateResponse(
        request, system_for(character.campaign).template, _sheet_context(request, character)
    )


@require_http_methods(["GET", "POST"])
def sheet_field(request, character_id: int, path: str):
    if request.method == "GET":
        character = selectors.character_for_viewer(request.user, character_id)
        field = _field(character, path)
        is_gm = character.campaign.is_gm(request.user)
        writable = policy.writable_kinds(request.user, character)
        editing = request.GET.get("edit") == "1" and field.kind in writable
        return TemplateResponse(
            request,
            f"{PARTS}#{'field-edit' if editing else 'field'}",
            {
                "character": character,
                "field": field,
                "can_edit": character.can_edit(request.user),
                "is_gm": is_gm,
                "writable": writable,
            },
        )
    character = selectors.character_for_editor(request.user, character_id)
    _field(character, path)  # 404 before anything else for a path that does not exist
    # The path's form field (in services.character_edit) reads the whole text and refuses what is too
    # long; only the echo of a refused text is capped.
    raw = request.POST.get("value", "")
    try:
        # The form's own version and the page's newest (hx-include): the newer one is what this tab saw.
        version = max(VERSION_FIELD.clean(v) for v in request.POST.getlist("version"))
    except (ValueError, ValidationError):
        version = -1  # no readable version: refused as stale, with the current value shown
    status, error = 200, ""
    try:
        services.character_edit(
            character=character,
            path=path,
            raw=raw,
            version=version,
            author=request.user,
            seen=request.POST.get("seen"),
        )
    except StaleVersion as stale:
        character = Character.objects.select_related("campaign", "owner").get(pk=character.pk)
        current = _field(character, path)
        status = 409
        error = (
            f"Someone changed this sheet since you opened it; {current.label} is now "
            f"{current.display}. Your text is kept: save again to replace it, or press Escape."
        )
        character.version = stale.current_version
    except ValidationError as invalid:
        status, error = 422, " ".join(invalid.messages)
        character.refresh_from_db(fields=["version", "name", "notes"])
    except RulesError as invalid:
        status, error = 422, str(invalid)
        character.refresh_from_db(fields=["version", "name", "notes"])
    if not request.htmx:
        # A plain form post (no JavaScript): say what happened and show the sheet again.
        if status == 200:
            messages.success(request, "Saved.")
        else:
            messages.error(request, error)
        return redirect(character)
    if status != 200:
        return TemplateResponse(
            request,
            f"{PARTS}#field-edit",
            {
                "character": character,
                "field": _field(character, path),
                "can_edit": True,
                "error": error,
                "typed": raw[:TYPED_ECHO_LIMIT],
                "oob_version": True,
            },
            status=status,
        )
    # The answer shows the field and the version; the buttons and the system's out-of-band parts when
    # what they are drawn from moved (a name or the notes leave them); the sheet's panels (turn,
    # requests, saved and recent rolls) are no part of it.
    drawn = request.POST.get("buttons_drawn")
    context = _sheet_context(request, character, options_data=request.POST, panels=False, page_buttons=drawn)
    context.update(field=_field(character, path), oob_version=True, oob_buttons=context["redraw_buttons"])
    return TemplateResponse(request, f"{PARTS}#field-saved", context)


def sheet_buttons(request, character_id: int):
    character = selectors.character_for_viewer(request.user, character_id)
    context = _sheet_context(request, character, options_data=request.GET)
    return TemplateResponse(request, f"{PARTS}#buttons", context)


@require_POST
def sheet_roll(request, character_id: int, key: str):
    character = selectors.character_for_editor(request.user, character_id)
    # One load of the system rows serves the options, the roll, its history and the answer.
    history.load_sheet_rows(character)
    system = system_for(character.campaign)
    form, options = _options(system, character, request.POST)
    chosen = RollVisibilityForm(request.POST)
    error = ""
    if options is None:
        error = " ".join(
            f"{form.fields[name].label or name.title()}: {' '.join(errs)}"
            for name, errs in form.errors.items()
        )
    elif not chosen.is_valid():
        error = " ".join(chosen.errors["visibility"])
    entry = outcome = None
    if not error:
        try:
            entry, outcome = services.character_roll(
                character=character,
                key=key,
                options=options,
                roller=Roller(system_random()),
                author=request.user,
                visibility=chosen.cleaned_data["visibility"],
                idempotency_key=(request.POST.get("idempotency_key") or "")[:64] or None,
            )
        except KeyError:
            raise Http404("Nothing to roll by that name on this sheet.") from None
        except ValidationError as invalid:
            error = " ".join(invalid.messages)
        except RulesError as invalid:
            error = str(invalid)
    if error:
        # A refused roll was rolled back, but the system may have touched the rows in memory first.
        character = Character.objects.select_related("campaign", "owner").get(pk=character.pk)
    # Otherwise character_roll left the character current (its version, its rows): render from it. The
    # buttons are drawn again only when what they show moved (most rolls, and every hidden one, change
    # nothing on the sheet).
    drawn = request.POST.get("buttons_drawn")
    # A refused roll's character was read again: its options too.
    read = None if error else (form, options)
    context = _sheet_context(
        request, character, options_data=request.POST, panels=False, page_buttons=drawn, options_read=read
    )
    # The roller gets the entry as the feed shows it to them: a blind roll is only its notice here too.
    variant = entry_variant_for(request.user, entry, character.campaign) if entry is not None else None
    context.update(entry=entry, variant=variant, error=error, oob_version=True)
    context["oob_buttons"] = context["redraw_buttons"]
    return TemplateResponse(request, f"{PARTS}#roll-result", context, status=422 if error else 200)


def sheet_export(request, character_id: int):
    """The whole character as a file: its build and its play state (sheets/transfer.py)."""
    character = selectors.character_for_viewer(request.user, character_id)
    response = JsonResponse(transfer.export_document(character), json_dumps_params={"indent": 2})
    response["Content-Disposition"] = f'attachment; filename="{slugify(character.name) or "character"}.json"'
    return response


@require_POST
def character_import(request, campaign_id: int):
    campaign = campaign_for_member(request.user, campaign_id)
    upload = CharacterImportForm(request.POST, request.FILES, campaign=campaign)
    if not upload.is_valid():
        messages.error(request, " ".join(upload.errors["file"]))
        return redirect("character_new", campaign_id=campaign.pk)
    try:
        imported = transfer.character_import(
            campaign=campaign, owner=request.user, document=upload.cleaned_data["export"]
        )
    except transfer.ImportRefused as refused:
        messages.error(request, str(refused))
        return redirect("character_new", campaign_id=campaign.pk)
    messages.success(request, imported.message)
    return redirect(imported.character)


def sheet_history(request, character_id: int):
    character = selectors.character_for_editor(request.user, character_id)
    return TemplateResponse(
        request,
        "sheets/history.html",
        {
            "character": character,
            "campaign": character.campaign,
            "changes": history.history_for(character),
        },
    )


def sheet_history_export(request, character_id: int, kind: str):
    """The character's change history as a download: JSON, or CSV (one line per value changed)."""
    character = selectors.character_for_editor(request.user, character_id)
    if kind not in ("json", "csv"):
        raise Http404("The history downloads as .json or .csv.")
    filename = f"{slugify(character.name) or 'character'}-history.{kind}"
    if kind == "csv":
        response = HttpResponse(history.history_csv(character), content_type="text/csv; charset=utf-8")
    else:
        response = JsonResponse(history.history_document(character), json_dumps_params={"indent": 2})
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


@require_POST
def sheet_undo(request, character_id: int, change_id: int):
    character = selectors.character_for_editor(request.user, character_id)
    change = get_object_or_404(character.changes, pk=change_id)
    try:
        history.change_undo(change=change, author=request.user)
    except history.UndoRefused as refused:
        messages.error(request, str(refused))
    else:
        messages.success(request, f"Undone: {change.reason}.")
    return redirect("sheet_history", character_id=character.pk)


@require_POST
def sheet_roll_apply(request, character_id: int, cursor: str):
    """Apply what a hidden roll would have changed on the sheet (services.roll_apply).

    For whoever may edit the sheet and sees the roll whole (selectors.entry_variant): the roller of a
    blind roll, who sees only its notice, is refused before anything about the roll is read. htmx gets
    the entry back as it now reads (with the refusal's reason beside it) and, on a sheet page, the
    version the change moved the sheet to.
    """
    character = selectors.character_for_editor(request.user, character_id)
    seq = cursors.seq_for(character.campaign_id, cursor)
    entry = get_object_or_404(
        FeedEntry.objects.select_related("author"),
        campaign_id=character.campaign_id,
        seq=-1 if seq is None else seq,
        character_id=character.pk,
        kind=FeedEntry.Kind.ROLL,
    )
    variant = entry_variant_for(request.user, entry, character.campaign)
    if variant is None:
        raise Http404("No such roll on this sheet.")
    if variant != FULL:
        raise PermissionDenied("Only those who see a roll's result apply what it changed.")
    error = ""
    try:
        services.roll_apply(character=character, entry=entry, author=request.user)
    except services.ApplyRefused as refused:
        error = str(refused)
    if not request.htmx:
        (messages.error if error else messages.success)(request, error or "Applied to the sheet.")
        return redirect(character)
    context = {
        "entry": entry,
        "variant": variant,
        "apply_error": error,
        "character": character,
        "oob_version": "version" in request.POST,  # sent from a sheet page (hx-include="#sheet-version")
    }
    return TemplateResponse(request, f"{PARTS}#roll-applied", context, status=422 if error else 200)


def _form_refused(request, form) -> None:
    """Each error with the label of the field at fault, as one message above the sheet."""
    for name, errors in form.errors.items():
        text = " ".join(errors)
        label = form.fields[name].label if name in form.fields else ""
        messages.error(request, f"{label}: {text}" if label and not text.startswith(label) else text)


def sheet_action(request, character, act, done, *, form=None, refused=None):
    """A system's action from its sheet page (a rest, a trait added, a repair), answered above the sheet.

    Validates ``form`` (if any), runs ``act(cleaned_data, seen_version)`` with the version the page saw,
    and says ``done(result)`` on success. An invalid form gets each error with its field's label, a page
    that missed a change the stale-sheet message, a rule's refusal (ValidationError) its messages, or
    what ``refused(request, error)`` makes of them; nothing changes then.
    """
    if form is not None and not form.is_valid():
        _form_refused(request, form)
    else:
        try:
            result = act(form.cleaned_data if form is not None else {}, seen_version(request.POST))
        except StaleVersion:
            messages.error(request, STALE_MESSAGE)
        except ValidationError as refusal:
            if refused is not None:
                refused(request, refusal)
            else:
                messages.error(request, " ".join(refusal.messages))
        else:
            messages.success(request, done(result))
    return redirect(character)


def party_panel(request, campaign):
    """The GM's party panel on the table page: every character's key numbers; nothing for players."""
    if not campaign.is_gm(request.user):
        return ""
    context = {"campaign": campaign, "party": selectors.characters_for_table(campaign)}
    return render_to_string("sheets/_party_panel.html", context, request=request)


def table_party(request, campaign_id: int):
    """The party panel alone, fetched again by the table page when a sheet at the table changes."""
    campaign = campaign_for_gm(request.user, campaign_id)
    return HttpResponse(party_panel(request, campaign))
