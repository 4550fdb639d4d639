"""The speaker's pages: the queue, the rating page and its offline shell, undo."""

import hashlib
import uuid

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, JsonResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from common import offline
from common.addresses import address, address_pattern
from common.responses import private, wants_json
from languages.directions import text_direction
from languages.selectors import language_cache_key
from speakers.selectors import practice_due

from .. import rating_texts
from ..forms import (
    RatingForm,
    shown_token,
)
from ..models import Assignment, Campaign
from ..rating_texts import CANNOT_JUDGE, RATING_BUTTONS
from ..selectors.campaigns import consent_withdrawn, governed_campaigns, is_serving
from ..selectors.rating import (
    campaign_with_next_item,
    current_rating,
    has_rated_in,
    loaded_rating_examples,
    may_hold,
    next_assignment_id,
    rating_examples,
    shown_item_texts,
    shown_upcoming_items,
    speaker_assignment,
    speaker_campaign,
    speaker_campaign_for_items,
    speaker_campaigns,
    speaker_history,
    speaker_progress,
    withdrawn_rating,
)
from ..services.errors import NotAllowed, ReviewError
from ..services.rating import record_rating, undo_last_rating


@login_required
def queue(request):
    """A speaker's review home: their campaigns, how far they are, where to continue; closed campaigns leave the
    list for a folded "finished" section below it."""
    rows = speaker_campaigns(request.user)
    return render(request, "review/queue.html", {
        "rows": [row for row in rows if row["campaign"].status != Campaign.Status.CLOSED],
        "finished": [row for row in rows if row["campaign"].status == Campaign.Status.CLOSED],
        "governs": bool(governed_campaigns(request.user).exists()),
        "practice_due": practice_due(request.user),
    })


@login_required
def campaign_start(request, public_id):
    """Continue where the speaker stopped: their next item in their own order, or the end screen. Before their
    first rating, the campaign's instructions come first, with a button to start."""
    campaign = speaker_campaign_or_404(request, public_id)
    if not is_serving(campaign):
        return not_serving(request, campaign)
    start = item_url(campaign.public_id, next_assignment_id(request.user, campaign))
    if campaign.instructions.strip() and not has_rated_in(request.user, campaign):
        return render(request, "review/instructions.html", {
            "campaign": campaign, "version": campaign.run_card.dataset_version, "start_url": start,
            "rating_rows": rating_rows(rating_examples(campaign.organization)),
        })
    return redirect(start)


def item_url(campaign_public_id: uuid.UUID, following: uuid.UUID | None) -> str:
    """Where a speaker goes after a rating: straight to their next item (its page applies the serving rule), or to
    the campaign's end screen — one redirect, not two through the campaign's start."""
    if following is None:
        return address("review:campaign_done", campaign_public_id)
    return address("review:rate", following)


def page_addresses(campaign_public_id: uuid.UUID, item_public_id: uuid.UUID | None) -> dict[str, str]:
    """The rating page's links: its campaign's pages and its item's own address."""
    return {"queue": address("review:queue"), "service_worker": address("review:service_worker"),
            **{name: address(f"review:{name}", campaign_public_id)
               for name in ("upcoming", "offline_shell", "campaign_done", "undo")},
            "item": address("review:rate", item_public_id) if item_public_id is not None else ""}


def not_serving(request, campaign: Campaign):
    withdrawn = consent_withdrawn(campaign)
    return render(request, "review/not_serving.html", {"campaign": campaign, "withdrawn": withdrawn}, status=409)


def not_serving_message(campaign: Campaign) -> str:
    """Why a rating was refused once the campaign stopped taking them, in the words of the page that says so:
    rate.js shows it and discards the ratings still waiting on the phone."""
    if consent_withdrawn(campaign):
        return str(rating_texts.NOT_SERVING_CONSENT_WITHDRAWN)
    if campaign.status == Campaign.Status.CLOSED:
        return str(rating_texts.NOT_SERVING_CLOSED)
    return str(rating_texts.NOT_SERVING_PAUSED)


@login_required
def campaign_done(request, public_id):
    campaign = speaker_campaign_or_404(request, public_id)
    return render(request, "review/done.html", {
        "campaign": campaign,
        "progress": speaker_progress(request.user, campaign),
        "history": speaker_history(request.user, campaign),
        "serving": is_serving(campaign),
    })


@login_required
def upcoming(request, public_id):
    """The speaker's next open items as data, for rate.js to show the next one without waiting and to keep
    rating without a connection. Secret items only when the campaign lets phones hold them."""
    campaign = speaker_campaign_for_items(request.user, public_id)
    if campaign is None:
        raise Http404(_("No such campaign among yours."))
    if not campaign.serving_when_read:
        message = not_serving_message(speaker_campaign_or_404(request, public_id))
        return private(JsonResponse({"error": message, "code": "not_serving"}, status=409))
    items, held_back = shown_upcoming_items(request.user, campaign, where=request.path)
    return private(JsonResponse({"items": [
        {"id": str(assignment.public_id),
         "url": address("review:rate", assignment.public_id),
         "shown": shown_token(assignment.public_id), **texts}
        for assignment, texts in items
    ], "held_back": held_back}))


def wants_next_item(request) -> bool:
    """rate.js asks for the next item itself as the answer to a rating: one round trip per rating."""
    return request.headers.get("X-Next-Item") == "item"


def holds_next_item(request) -> bool:
    """rate.js says it holds the item it shows next: its JSON answer need not name the next item (`next_url` is
    null), which saves the rating a query."""
    return request.headers.get("X-Next-Item") == "held" and wants_json(request)


@login_required
def rate(request, public_id):
    """One item: read, rate, next. Works as plain form posts (a rating answers with a redirect to the next item);
    rate.js adds keys, a queue of ratings kept on the device until sent, and the next items fetched ahead."""
    if request.method == "POST":
        return rate_post(request, public_id)
    assignment = speaker_assignment(request.user, public_id)
    if assignment is None:
        raise Http404(_("No such item among yours."))
    # The one serving rule, whatever the method: an item's texts only while its campaign serves it.
    if not assignment.campaign.serving_when_read:
        return not_serving(request, assignment.campaign)
    current = current_rating(assignment)
    # After an undo the item comes back with the flags, comment and translation that were given with it, whenever
    # it is opened again.
    given = current if current is not None else withdrawn_rating(assignment)
    initial = {}
    if given is not None:
        initial = {"flags": given.flags, "comment": given.comment, "correction": given.correction}
    return item_page(request, assignment, RatingForm(initial=initial), current)


def rate_post(request, public_id):
    """The hot path: the service locks the speaker's assignment and decides in its transaction whether they may
    rate it (in the pool, a speaker of the organization, the campaign serving). A post goes to the service even when
    the campaign stopped serving: a retry of a rating stored before the pause is acknowledged as stored; anything
    new is refused there. Only an answer that shows an item reads texts."""
    script = wants_json(request) or wants_next_item(request)
    form = RatingForm(request.POST)
    if form.is_valid():
        try:
            rating, created = record_rating(
                actor=request.user, item=public_id, submission=form.submission(public_id))
        except NotAllowed as error:
            raise Http404(str(error)) from error
        except ReviewError as error:
            if script:
                shown = speaker_assignment(request.user, public_id)
                if shown is None:
                    raise Http404(_("No such item among yours.")) from error
                if not shown.campaign.serving_when_read:
                    return JsonResponse({"error": not_serving_message(shown.campaign), "code": "not_serving"},
                                        status=409)
                return JsonResponse({"error": str(error), "field": error.field, "code": "refused"}, status=409)
            form.add_error(None, str(error))
        else:
            # An answer that carries the next item needs its campaign's rules, whether it serves now and the next
            # item: read after the rating, without the rated item's texts (one round trip).
            campaign, following = (campaign_with_next_item(request.user, rating.assignment.campaign)
                                   if wants_next_item(request) else (None, None))
            return rated(request, campaign, following, rating, created)
    elif script:
        errors = {name: [str(e) for e in errs] for name, errs in form.errors.items()}
        return JsonResponse({"error": _("The rating was not saved."), "fields": errors, "code": "invalid"},
                            status=400)
    shown = speaker_assignment(request.user, public_id)
    if shown is None:
        raise Http404(_("No such item among yours."))
    if not shown.campaign.serving_when_read:
        return not_serving(request, shown.campaign)
    return item_page(request, shown, form, current_rating(shown))


def speaker_campaign_or_404(request, public_id) -> Campaign:
    campaign = speaker_campaign(request.user, public_id)
    if campaign is None:
        raise Http404(_("No such campaign among yours."))
    return campaign


def rated(request, campaign: Campaign | None, following: Assignment | None, rating, created: bool):
    """The answer to a stored rating: JSON for rate.js — carrying the next item itself (`following`) when rate.js has
    nothing left to show (and the campaign still serves; `campaign` is then the one read after the rating, with
    `serving_when_read`), else naming the next item unless rate.js holds it — or a redirect to the next item or the
    end screen without JavaScript."""
    rated_item = rating.assignment
    following_item = None
    if campaign is not None:
        next_url = item_url(campaign.public_id, following and following.public_id)
        # A rating just stored proves the campaign serves (the service checked, in its transaction); a resent
        # one proves nothing, the campaign read after it does.
        if following is not None and (created or campaign.serving_when_read):
            following_item = next_item(request, campaign, following)
    elif holds_next_item(request):
        next_url = None
    else:
        next_url = item_url(rated_item.campaign.public_id,
                            next_assignment_id(request.user, rated_item.campaign_id))
    if wants_json(request) or wants_next_item(request):
        answer = {"saved": True, "duplicate": not created, "rating": rating.value, "next_url": next_url}
        if following_item is not None:
            answer["next_item"] = following_item
        return JsonResponse(answer, status=201 if created else 200)
    return redirect(next_url)


def next_item(request, campaign: Campaign, assignment: Assignment) -> dict:
    """The next item as rate.js shows it (the fields of the upcoming items, and whether the phone may keep it),
    its secret texts audited as the page showing them would be."""
    public_id = assignment.public_id
    url = address("review:rate", public_id)
    return {"id": str(public_id), "url": url, "shown": shown_token(public_id),
            **shown_item_texts(request.user, campaign, assignment.item, where=url),
            "may_hold": may_hold(campaign, assignment.item)}


def rating_rows(examples: dict) -> list[tuple]:
    """The rating scale as the page explains it: (value, key, label, explanation, the community's example or ""),
    "can't judge" last. `examples` is keyed by rating value or by the rating's key (0–4)."""
    rows = [*RATING_BUTTONS, CANNOT_JUDGE]
    return [(value, key, label, explanation, examples.get(value) or examples.get(int(key)) or "")
            for value, key, label, explanation in rows]


def unchanging_parts_key(campaign: Campaign, examples: dict) -> str:
    """The key of the rating page's parts that are the same for every item of a campaign in one language (its
    instructions and rating scale, the walkthrough, the keyboard help, the rating buttons of an item not yet rated):
    rate.html caches them in the memory of each process (`{% cache %}`, the `template_fragments` cache), so showing
    an item renders little but its texts. Whatever they show is in the key: changed instructions or examples make a
    new key, never a stale page."""
    shown = repr((campaign.instructions, campaign.organization.name, sorted(examples.items(), key=str))).encode()
    return f"{campaign.pk}:{language_cache_key()}:{hashlib.blake2b(shown, digest_size=12).hexdigest()}"


def item_page(request, assignment, form: RatingForm, current):
    campaign = assignment.campaign
    # The server's clock for this showing: what a rating posted without the page's script is timed by.
    form.fields["shown"].initial = shown_token(assignment.public_id)
    progress = assignment.progress
    version = campaign.run_card.dataset_version
    examples = loaded_rating_examples(campaign.organization)
    addresses = page_addresses(campaign.public_id, assignment.public_id)
    return private(render(request, "review/rate.html", {
        "assignment": assignment, "campaign": campaign, "form": form, "current": current, "addresses": addresses,
        "texts": shown_item_texts(request.user, campaign, assignment.item, where=addresses["item"]),
        "version": version, "source_dir": text_direction(version.source_language),
        "target_dir": text_direction(version.target_language),
        "progress": progress, "buttons": RATING_BUTTONS, "rating_rows": rating_rows(examples),
        "parts_key": unchanging_parts_key(campaign, examples), "may_hold": may_hold(campaign, assignment.item),
        # A rated or skipped item always holds the speaker's current rating: something to undo.
        "can_undo": progress["done"] > 0,
        # Controls that show nothing of a rating (none given, restored or refused) are the same for every item.
        "plain_controls": current is None and not form.is_bound and not any(
            form.initial.get(name) for name in ("flags", "comment", "correction")),
    }, status=400 if form.errors else 200))


@login_required
@require_POST
def undo(request, public_id):
    campaign = speaker_campaign_or_404(request, public_id)
    try:
        assignment = undo_last_rating(campaign=campaign, actor=request.user)
    except ReviewError as error:
        messages.error(request, str(error))
        return redirect("review:queue")
    if assignment is None:
        messages.info(request, _("There is no rating to undo."))
        return redirect("review:campaign_start", public_id=campaign.public_id)
    messages.success(request, _("Your last rating was withdrawn (it stays in the history). Rate this item again."))
    return redirect(address("review:rate", assignment.public_id))


@login_required
def offline_shell(request, public_id):
    """The rating page without an item: rate.js stores it under the addresses of the items it holds, and fills it
    with the held item when the page is reloaded without a connection (`service_worker`)."""
    campaign = speaker_campaign_or_404(request, public_id)
    if not is_serving(campaign):
        return not_serving(request, campaign)
    version = campaign.run_card.dataset_version
    texts = {"source": "", "candidate": ""} | ({"reference": ""} if campaign.show_reference else {})
    examples = rating_examples(campaign.organization)
    return private(render(request, "review/rate.html", {
        "shell": True, "campaign": campaign, "form": RatingForm(), "current": None, "texts": texts,
        "addresses": page_addresses(campaign.public_id, None), "plain_controls": True,
        "version": version, "source_dir": text_direction(version.source_language),
        "target_dir": text_direction(version.target_language),
        "progress": speaker_progress(request.user, campaign), "buttons": RATING_BUTTONS,
        "rating_rows": rating_rows(examples), "parts_key": unchanging_parts_key(campaign, examples), "can_undo": False,
    }))


def service_worker(request):
    """rate.js's service worker (common.offline), served under /review/ so that its scope covers the rating pages;
    it holds no data of its own (rate.js decides what is stored)."""
    rating_page = address_pattern("review:rate")
    return offline.service_worker(request, cache="champollion-rate-v1", item_page=rating_page, submission=rating_page)
