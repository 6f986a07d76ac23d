"""The table's two boxes: the dice box (a line to roll, with who sees it and as whom) and the chat box.

Each rendered form carries a fresh idempotency key, so a double-click or a retried POST carries it
twice and is saved once.
"""

import uuid

from django import forms

from . import commands, hooks, services
from .forms import VisibilityField
from .models import WHISPER, Visibility
from .rendering import drawn_digest


def new_key() -> str:
    return uuid.uuid4().hex


class DiceBoxForm(forms.Form):
    notation = forms.CharField(
        label="Dice",
        max_length=200,
        widget=forms.TextInput(
            attrs={"placeholder": "2d6+1, d20 adv vs 15, 7k3 vs 20, 5x5 vs 6", "autocomplete": "off"}
        ),
    )
    visibility = VisibilityField(label="Who sees it", extra=[(WHISPER, "Whisper (to those ticked)")])
    # Whom the box's own whisper is for: the others seated at the table ("/w" in a line: commands.read).
    whisper_to = forms.TypedMultipleChoiceField(
        label="Whisper to",
        coerce=int,
        required=False,
        widget=forms.CheckboxSelectMultiple,
        error_messages={"invalid_choice": "Tick only people seated at this table."},
    )
    character = forms.TypedChoiceField(label="As", coerce=int, required=False, empty_value=None)
    # A fresh key per rendered form: a double-click or a retried POST carries it twice and rolls once.
    idempotency_key = forms.RegexField(regex=r"^[A-Za-z0-9_-]{8,64}$", widget=forms.HiddenInput)

    def __init__(self, *args, subjects: list[hooks.RollSubject], campaign, author, seated, **kwargs):
        super().__init__(*args, **kwargs)
        self.campaign, self.author, self.seated = campaign, author, seated
        self.others = {user.pk: user for user in seated if user.pk != author.pk}
        self.fields["whisper_to"].choices = [(user.pk, user.username) for user in self.others.values()]
        if not self.others:  # alone at the table: nobody to whisper to
            self.fields["visibility"].choices = Visibility.choices
        self.subjects = {subject.pk: subject for subject in subjects}
        if subjects:
            self.fields["character"].choices = [("", "(no character)")] + [
                (subject.pk, subject.name) for subject in subjects
            ]
        else:
            del self.fields["character"]

    def drawn_from(self) -> str:
        """A digest of what the box offers besides the line: whom it may whisper to, the characters it
        rolls as, who may see a roll. A roll sends it back, so the answer can tell that the page's box
        still offers what a fresh one would (campaigns.views.table_roll)."""
        offered = [
            [[user.pk, user.username] for user in self.others.values()],
            [[subject.pk, subject.name] for subject in self.subjects.values()],
            [[value, str(label)] for value, label in self.fields["visibility"].choices],
        ]
        return drawn_digest(offered)

    def clean_character(self):
        return self.subjects.get(self.cleaned_data["character"])

    def clean(self):
        """Read the line's command (campaigns/commands.py) and who sees the line, each error on its field.

        ``notation`` keeps the line's body (the dice, or an emote's words); ``action`` is what to do
        with it. A command's visibility and names are this line's alone; ``chosen_visibility`` and
        ``whisper_to`` stay the box's own choice, which a line without a command gets and the next
        form keeps. ``recipients`` holds the users the line whispers to.
        """
        data = super().clean()
        ticked = [self.others[pk] for pk in data.get("whisper_to", [])]
        data["chosen_visibility"] = data.get("visibility")
        data["recipients"] = []
        if "notation" not in data:
            return data
        try:
            command = commands.read(
                data["notation"],
                plain=commands.ROLL,
                campaign=self.campaign,
                author=self.author,
                seated=self.seated,
            )
        except commands.CommandError as error:
            self.add_error("notation", str(error))
            return data
        data["action"], data["notation"] = command.action, command.body
        if command.visibility is not None:  # the command decides who sees this line, and only this one
            data["visibility"], data["recipients"] = command.visibility, list(command.recipients)
        elif "visibility" in data:
            try:
                data["visibility"] = services.whisper_visibility(data["visibility"], ticked)
            except services.CampaignError as error:
                self.add_error("whisper_to", str(error))
            data["chosen_visibility"], data["recipients"] = data["visibility"], ticked
        return data


class ChatForm(forms.Form):
    text = forms.CharField(
        label="Say",
        max_length=services.CHAT_MAX_LENGTH,
        widget=forms.TextInput(attrs={"placeholder": "Say something to the table", "autocomplete": "off"}),
    )
    idempotency_key = forms.RegexField(regex=r"^[A-Za-z0-9_-]{8,64}$", widget=forms.HiddenInput)
