"""`{{ entry.segment|choice_label:"segment" }}`: a corpus choice's label in the reader's language."""

from django import template

from ..labels import choice_label as label_of

register = template.Library()


@register.filter
def choice_label(value: str, field: str) -> str:
    return label_of(field, value)
