from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_not_required
from django.core.exceptions import ValidationError
from django.http.request import split_domain_port
from django.shortcuts import redirect, render
from django.template.response import TemplateResponse
from django.urls import reverse
from django.views.decorators.http import require_POST
from django_htmx.http import reswap

from rules import notation
from rules.dice import RulesError
from rules.notation import NotationError

from . import (
    accounts,
    chain,
    commands,
    cursors,
    distribution,
    hooks,
    lan,
    limits,
    rendering,
    selectors,
    services,
    systems,
)
from .forms import CampaignForm
from .models import Campaign, FeedEntry
from .table_forms import ChatForm, DiceBoxForm, new_key


@login_not_required
def landing(request):
    if request.user.is_authenticated:
        return redirect("dashboard")
    return render(request, "campaigns/landing.html", {"systems": systems.choices()})


def dashboard(request):
    return render(request, "campaigns/dashboard.html", selectors.dashboard_for(request.user))


def campaign_create(request):
    form = CampaignForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        campaign = services.campaign_create(gm=request.user, **form.cleaned_data)
        messages.success(request, f"{campaign.name} is ready. Send the invite link to your players.")
        return redirect(campaign)
    return render(request, "campaigns/campaign_form.html", {"form": form})


def campaign_detail(request, campaign_id: int):
    campaign = selectors.campaign_for_member(request.user, campaign_id)
    is_gm = campaign.is_gm(request.user)
    context = {
        "campaign": campaign,
        "is_gm": is_gm,
        "members": selectors.members_of(campaign),
    }
    if is_gm:
        context["invite_urls"], context["invite_on_lan"] = invite_urls(
            request, reverse("campaign_join", args=[campaign.invite_token])
        )
        context["serving_loopback"] = lan.is_loopback(settings.SERVE_HOST.strip("[]"))
        context["serve_host"] = settings.SERVE_HOST
    return render(request, "campaigns/campaign_detail.html", context)


def invite_urls(request, path: str) -> tuple[list[str], bool]:
    """The links players can open: a GM on this machine's own address (localhost) gets one per LAN address,
    since players' devices cannot reach a loopback address; anyone else gets the address they used.
    The flag says the links were swapped for LAN ones. A server listening on loopback only
    (settings.SERVE_HOST) cannot be reached on the LAN at all: its own address is the only true link."""
    host, port = split_domain_port(request.get_host())
    serving_loopback = lan.is_loopback(settings.SERVE_HOST.strip("[]"))
    addresses = lan.lan_addresses() if lan.is_loopback(host.strip("[]")) and not serving_loopback else []
    if not addresses:
        return [request.build_absolute_uri(path)], False
    # The port the GM's browser used: the server listens on it on every interface `make run` binds.
    suffix = f":{port}" if port else ""
    return [f"{request.scheme}://{address}{suffix}{path}" for address in addresses], True


def campaign_edit(request, campaign_id: int):
    campaign = selectors.campaign_for_gm(request.user, campaign_id)
    form = CampaignForm(request.POST or None, instance=Campaign.objects.get(pk=campaign.pk))
    if request.method == "POST" and form.is_valid():
        services.campaign_update(
            campaign=campaign,
            name=form.cleaned_data["name"],
            description=form.cleaned_data["description"],
            options=form.options(),
        )
        messages.success(request, "Campaign saved.")
        return redirect(campaign)
    return render(request, "campaigns/campaign_form.html", {"form": form, "campaign": campaign})


def feed_check(request, campaign_id: int):
    """The GM's check of the feed's hash chain: intact, or which entry broke it (campaigns/chain.py)."""
    campaign = selectors.campaign_for_gm(request.user, campaign_id)
    found = chain.first_break(campaign)
    entries = FeedEntry.objects.filter(campaign=campaign).select_related("author").order_by("-seq")
    entry, visible = None, False
    if found is not None:
        # A missing entry is placed after the one before it; the others are the entry itself.
        entry = entries.filter(seq__lt=found.seq if found.reason == "missing" else found.seq + 1).first()
        visible = entry is not None and selectors.entry_variant_for(request.user, entry, campaign) is not None
    head = None if found is not None else entries.values_list("hash", flat=True).first()
    context = {
        "campaign": campaign,
        "found": found,
        "entry": entry,
        "visible": visible,
        "head": head,
    }
    template = "campaigns/feed_check.html" + ("#result" if request.htmx else "")
    return TemplateResponse(request, template, context)


@require_POST
def invite_rotate(request, campaign_id: int):
    campaign = selectors.campaign_for_gm(request.user, campaign_id)
    services.invite_rotate(campaign=campaign)
    messages.success(request, "New invite link made. The old one no longer works.")
    return redirect(campaign)


@require_POST
def member_remove(request, campaign_id: int, user_id: int):
    campaign = selectors.campaign_for_gm(request.user, campaign_id)
    try:
        services.member_remove(campaign=campaign, user_id=user_id)
    except services.CampaignError as error:
        messages.error(request, str(error))
    else:
        messages.success(request, "Player removed from the table.")
    return redirect(campaign)


@require_POST
def campaign_leave(request, campaign_id: int):
    campaign = selectors.campaign_for_member(request.user, campaign_id)
    if campaign.is_gm(request.user):
        messages.error(request, "The GM cannot leave their own campaign.")
        return redirect(campaign)
    services.campaign_leave(campaign=campaign, user=request.user)
    messages.success(request, f"You left {campaign.name}.")
    return redirect("dashboard")


@login_not_required
def campaign_join(request, token: str):
    campaign = Campaign.objects.filter(invite_token=token).select_related("gm").first()
    if not request.user.is_authenticated:
        if campaign is None:
            return render(request, "campaigns/join_invalid.html", status=404)
        # Whichever way they sign up or log in from here, they are seated once the form is done.
        accounts.remember_invite(request, token)
        return render(request, "campaigns/join.html", {"campaign": campaign, "anonymous": True})
    if request.method == "POST":
        try:
            campaign, joined = services.campaign_join(user=request.user, token=token)
        except (services.CampaignError, ValidationError) as error:
            messages.error(request, str(error.messages[0] if isinstance(error, ValidationError) else error))
            return redirect("dashboard")
        if joined:
            messages.success(request, f"Welcome to {campaign.name}!")
        return redirect(campaign)
    if campaign is None:
        return render(request, "campaigns/join_invalid.html", status=404)
    already = selectors.is_seated(request.user, campaign)
    return render(request, "campaigns/join.html", {"campaign": campaign, "already": already})


# ---------------------------------------------------------------------------------------------------
# The table
# ---------------------------------------------------------------------------------------------------


def _dice_form(request, campaign, data=None, *, subjects=None, seated=None) -> DiceBoxForm:
    if subjects is None:
        subjects = hooks.roll_subjects(request.user, campaign)
    return DiceBoxForm(
        data,
        subjects=subjects,
        campaign=campaign,
        author=request.user,
        seated=selectors.table_users(campaign) if seated is None else seated,
        initial={"idempotency_key": new_key()},
    )


def _chat_form(data=None) -> ChatForm:
    return ChatForm(data, initial={"idempotency_key": new_key()})


def _table_context(request, campaign, **forms_given) -> dict:
    entries, older_than = selectors.feed_for_viewer(request.user, campaign)
    is_gm = campaign.is_gm(request.user)
    return {
        "campaign": campaign,
        "is_gm": is_gm,
        "entries": entries,
        "older_than": older_than,
        # The newest entry on the page: the socket's hello asks for everything after it.
        "last_cursor": entries[0].cursor if entries else "",
        "dice_form": forms_given.get("dice_form") or _dice_form(request, campaign),
        "chat_form": forms_given.get("chat_form") or _chat_form(),
        "panels": hooks.render_panels(hooks.TABLE, request, campaign=campaign),
        "notation_error": forms_given.get("notation_error"),
    }


def table(request, campaign_id: int):
    campaign = selectors.campaign_for_member(request.user, campaign_id)
    return TemplateResponse(request, "campaigns/table.html", _table_context(request, campaign))


def table_feed(request, campaign_id: int):
    """Older feed entries: the next page for the scrolling feed, or a plain history page without htmx."""
    campaign = selectors.campaign_for_member(request.user, campaign_id)
    # The page marker is a cursor (cursors.py), never a seq; an unreadable one gives the newest page.
    before_seq = cursors.seq_for(campaign.pk, request.GET.get("before"))
    entries, older_than = selectors.feed_for_viewer(request.user, campaign, before_seq=before_seq)
    context = {"campaign": campaign, "entries": entries, "older_than": older_than}
    template = "campaigns/table_history.html"
    if request.htmx:
        template += "#feed-page"
    return TemplateResponse(request, template, context)


def _dice_box_response(request, campaign, form, *, status=200, notation_error=None):
    if request.htmx:
        return TemplateResponse(
            request,
            "campaigns/table.html#dice-box",
            {"campaign": campaign, "dice_form": form, "notation_error": notation_error},
            status=status,
        )
    context = _table_context(request, campaign, dice_form=form, notation_error=notation_error)
    return TemplateResponse(request, "campaigns/table.html", context, status=status)


def _rate_limited(response, error: limits.RateLimited):
    response.status_code = 429
    response["Retry-After"] = str(error.retry_after)
    return response


@require_POST
def table_roll(request, campaign_id: int):
    """Roll a dice-box line on the server. htmx gets the dice box back; the entry arrives by websocket."""
    campaign, seated = selectors.table_for_member(request.user, campaign_id)
    form = _dice_form(request, campaign, request.POST, seated=seated)
    if not form.is_valid():
        return _dice_box_response(request, campaign, form, status=200 if request.htmx else 400)
    data = form.cleaned_data
    try:
        if data["action"] == commands.EMOTE:  # "/em draws her sword": a line of the feed, as its author
            services.chat_line_create(
                campaign=campaign,
                author=request.user,
                text=form.data["notation"],
                character=data.get("character"),
                idempotency_key=data["idempotency_key"],
            )
        else:
            services.table_roll_create(
                campaign=campaign,
                author=request.user,
                notation_text=data["notation"],
                visibility=data["visibility"],
                character=data.get("character"),
                idempotency_key=data["idempotency_key"],
                recipients=data["recipients"],
            )
    except NotationError as error:
        # The message names the position; the template also draws a caret under the character.
        shown = _caret(error)
        return _dice_box_response(
            request, campaign, form, status=200 if request.htmx else 400, notation_error=shown
        )
    except limits.RateLimited as error:
        # 429 on every path, htmx included (base.html's htmx-config swaps it so the message shows).
        form.add_error(None, str(error))
        return _rate_limited(_dice_box_response(request, campaign, form, status=429), error)
    except (RulesError, services.CampaignError) as error:
        form.add_error(None, str(error))
        return _dice_box_response(request, campaign, form, status=200 if request.htmx else 400)
    if request.htmx:
        # A fresh form (and key) for the next roll. The box's own choice of visibility, names ticked and
        # character sticks; a command's ("/w alice", "/gr") was for its line only.
        fresh = _dice_form(request, campaign, subjects=list(form.subjects.values()), seated=form.seated)
        subject = data.get("character")
        fresh.initial.update(
            visibility=data["chosen_visibility"],
            character=subject.pk if subject else None,
            whisper_to=data.get("whisper_to", []),
        )
        if request.POST.get("box_drawn") == fresh.drawn_from():
            # The page's box shows no error and offers what this one would: only the key and the line
            # change, swapped in place (nothing else of the box is drawn or sent).
            context = {"campaign": campaign, "dice_form": fresh}
            rolled = TemplateResponse(request, "campaigns/table.html#dice-box-rolled", context)
            return reswap(rolled, "none")
        return _dice_box_response(request, campaign, fresh)
    return redirect("table", campaign.pk)


def _caret(error: NotationError) -> dict:
    return {"message": str(error), "text": error.text, "caret": " " * error.index + "^"}


def table_odds(request, campaign_id: int):
    """The exact distribution of the line being typed in the dice box, as an SVG partial.

    Worked out on the server in fractions (rules.notation.distribution), within the dice box's time
    bound: a line too big to finish in it says so rather than guessing. Nothing is rolled or saved, so
    it needs no rate limit beyond the notation's own limits on the size of a line.
    """
    campaign, seated = selectors.table_for_member(request.user, campaign_id)
    text = str(request.GET.get("notation", ""))[: notation.MAX_LENGTH + 1]
    try:  # "/gr 2d6", "/w alice 2d6": the odds of the 2d6
        command = commands.read(
            text, plain=commands.ROLL, campaign=campaign, author=request.user, seated=seated
        )
    except commands.CommandError as error:
        context = {"campaign": campaign, "notation_error": {"message": str(error)}}
    else:
        shown = command.action == commands.ROLL and command.body
        context = {"campaign": campaign, **(_odds(campaign, command.body) if shown else {})}
    return TemplateResponse(request, "campaigns/_distribution.html", context)


def _odds(campaign, text: str) -> dict:
    """What the odds partial shows of a line: its picture, its chance alone, or what is wrong with it."""
    try:
        tree = notation.parse(text)
    except NotationError as error:
        return {"notation_error": _caret(error)}
    line = notation.to_notation(tree)
    try:
        dist = notation.distribution(tree)
    except notation.NotExact:
        pass  # roll and keep dice, and lines too big to draw, may still have an exact chance
    else:
        repeat = tree.count if isinstance(tree, notation.Repeat) else None
        picture = distribution.distribution_picture(dist, target=dist.target, repeat=repeat)
        summary = distribution.distribution_summary(tree, dist, picture)
        return {"line": line, "picture": picture, "summary": summary}
    options = systems.get(campaign.system).dice_box_options(campaign.options)
    try:
        chance = notation.rolled_chance(tree, text, **options)
    except NotationError as error:  # the roll would be refused: say so while the line is typed
        return {"line": line, "notation_error": _caret(error)}
    return {
        "line": line,
        "not_exact": True,
        "target": getattr(tree, "target", None),
        "chance": rendering.format_percent(chance),
        "chance_exact": distribution.exact_text(chance) if chance is not None else "",
    }


@require_POST
def table_chat(request, campaign_id: int):
    campaign = selectors.campaign_for_member(request.user, campaign_id)
    form = _chat_form(request.POST)
    status = 200
    limited = None
    if form.is_valid():
        try:
            services.chat_line_create(
                campaign=campaign,
                author=request.user,
                text=form.cleaned_data["text"],
                idempotency_key=form.cleaned_data["idempotency_key"],
            )
        except (services.CampaignError, limits.RateLimited) as error:
            form.add_error("text", str(error))
            status = 400
            if isinstance(error, limits.RateLimited):
                limited = error
        else:
            if not request.htmx:
                return redirect("table", campaign.pk)
            form = _chat_form()
    else:
        status = 400
    if request.htmx:
        response = TemplateResponse(
            request, "campaigns/table.html#chat-box", {"campaign": campaign, "chat_form": form}
        )
    else:
        response = TemplateResponse(
            request, "campaigns/table.html", _table_context(request, campaign, chat_form=form), status=status
        )
    return _rate_limited(response, limited) if limited else response
