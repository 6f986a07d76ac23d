from crispy_forms.helper import FormHelper
from crispy_forms.layout import Submit
from django import forms

from . import systems
from .models import Campaign


class CampaignForm(forms.ModelForm):
    class Meta:
        model = Campaign
        fields = ["name", "system", "description"]
        widgets = {"description": forms.Textarea(attrs={"rows": 4})}
        help_texts = {"system": "The rule system every character at this table uses. It cannot change later."}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.helper = FormHelper()
        self.helper.add_input(Submit("submit", "Save campaign" if self.instance.pk else "Create campaign"))
        if self.instance.pk:
            del self.fields["system"]
            # The optional rules the campaign's system offers, each a checkbox kept in Campaign.options.
            for key, label, help_text in systems.get(self.instance.system).options:
                self.fields[f"option_{key}"] = forms.BooleanField(
                    required=False,
                    label=label,
                    help_text=help_text,
                    initial=bool(self.instance.options.get(key)),
                )

    def options(self) -> dict[str, bool]:
        """The optional rules as chosen, keyed as Campaign.options stores them."""
        return {
            name.removeprefix("option_"): value
            for name, value in self.cleaned_data.items()
            if name.startswith("option_")
        }


def crispy_helper(label: str) -> FormHelper:
    helper = FormHelper()
    helper.add_input(Submit("submit", label))
    return helper
