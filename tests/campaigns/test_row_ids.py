"""A row id a client sends outside a form (a URL's ``<id:...>``, a posted choice) is read as IdField
reads it: the plain digits at once, everything else by the field itself."""

import pytest
from django.core.exceptions import ValidationError
from hypothesis import given
from hypothesis import strategies as st

from campaigns.forms import WHOLE_NUMBER_LIMIT, IdField, row_id


def field_reading(text):
    try:
        return IdField(required=False).clean(text)
    except ValidationError:
        return None


@pytest.mark.parametrize(
    "text",
    [
        "1", "42", str(WHOLE_NUMBER_LIMIT), str(WHOLE_NUMBER_LIMIT + 1), "9999999999", "12345678901",
        "0", "007", " 5", "5 ", "+5", "-5", "²", "٣", "1e9", "", "1" + "0" * 30, 7, None,
    ],
)  # fmt: skip
def test_an_id_reads_as_the_field_reads_it(text):
    assert row_id(text) == field_reading(text)


@given(st.text(alphabet="0123456789+- ²٣e", max_size=12))
def test_any_short_text_reads_as_the_field_reads_it(text):
    assert row_id(text) == field_reading(text)
