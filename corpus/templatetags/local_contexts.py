"""`{% load local_contexts %}`: Local Contexts labels in the reader's language (the community's translation in it, else
its own text; never a machine translation), for pages of any app that show a label document
(corpus.label_selectors.label_document), e.g. the leaderboard's rows."""

from typing import Any

from django import template

from ..label_selectors import label_shown_in

register = template.Library()


@register.filter
def label_shown(document: dict[str, Any]) -> dict[str, str]:
    return label_shown_in(document)


@register.inclusion_tag("corpus/_label_badges.html")
def label_badges(documents: list[dict[str, Any]]) -> dict[str, Any]:
    """The labels as short badges: the name the reader reads, the text as its title, restrictive ones marked."""
    return {"labels": [{**label_shown_in(document), "restrictive": document["restrictive"],
                        "category": document["category"]} for document in documents]}
