from crispy_forms.helper import FormHelper
from crispy_forms.layout import Submit
from django import forms

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


def crispy_helper(label: str) -> FormHelper:
    helper = FormHelper()
    helper.add_input(Submit("submit", label))
    return helper
