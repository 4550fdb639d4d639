import secrets
import time
import uuid

from django import forms
from django.contrib.auth import get_user_model
from django.core import signing
from django.core.validators import MaxValueValidator
from django.utils import timezone
from django.utils.formats import number_format
from django.utils.functional import lazy
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from leaderboard.verification import DEPLOYABLE_THRESHOLD
from ledger.worktime import CLOCK_SLACK_SECONDS
from organizations.models import Role

from .gate import CHRF_TRIGGER_RANGE, POLICY_RANGES, policy_problems, ratings_per_item_problem
from .models import (
    FLAG_FIELDS,
    IDLE_CAP_SECONDS,
    MAX_RATING_SECONDS,
    MAX_REPEATS,
    SPEAKER_TITLE_LIMIT,
    GatePolicy,
    RatingExamples,
)
from .rating_texts import (
    ACTIVE_TIME_INVALID,
    CHOOSE_A_RATING,
    COMMENT_LABEL,
    CORRECTION_LABEL,
    FLAG_LABELS,
    FLAGS_LABEL,
    INVALID_SUBMISSION_ID,
    MISSING_SUBMISSION_ID,
    RATING_CHOICES,
    UNKNOWN_RATING,
)
from .services.rating import Submission


def below_threshold_help() -> str:
    """The help of the reason for reviewing a card under its trigger, with the threshold written the reader's way."""
    return _("Required when the run card is under its review trigger: composite %(threshold)s (the Deployable "
             "threshold) for legacy-composite cards, your organization's chrF++ trigger for standard/1 cards."
             ) % {"threshold": number_format(DEPLOYABLE_THRESHOLD, 2)}


def pool_candidates(organization):
    return get_user_model().objects.filter(memberships__organization=organization,
                                           memberships__role=Role.SPEAKER).distinct().order_by("email")


class SpeakerChoiceField(forms.ModelMultipleChoiceField):
    def label_from_instance(self, user):
        return user.email


class RefusingOptions:
    """A choice widget whose options for the speakers who may not be chosen (`refusals`: user id → why) are shown
    disabled, saying why; a post that chooses one all the same is refused by the service, with the same reason."""

    refusals: dict[int, str]

    def create_option(self, name, value, label, selected, index, subindex=None, attrs=None):
        option = super().create_option(name, value, label, selected, index, subindex, attrs)  # type: ignore[misc]
        reason = self.refusals.get(getattr(value, "value", value))
        if reason:
            option["attrs"]["disabled"] = True
            option["label"] = _("%(email)s — not available: %(reason)s") % {"email": label, "reason": reason}
        return option


class PoolCheckboxes(RefusingOptions, forms.CheckboxSelectMultiple):
    refusals: dict[int, str] = {}


class PoolSelect(RefusingOptions, forms.Select):
    refusals: dict[int, str] = {}


INSTRUCTIONS_LIMIT = 10_000


class CampaignGuidanceForm(forms.Form):
    """What governance staff tell the speakers of a campaign, when it opens and while it runs."""

    instructions = forms.CharField(
        required=False, max_length=INSTRUCTIONS_LIMIT, widget=forms.Textarea(attrs={"rows": 6}),
        label=gettext_lazy("Instructions for speakers"),
        help_text=gettext_lazy("Shown to speakers before their first item and one tap away on every item: what to "
                               "look for, the spelling conventions to accept, whom to ask. You can change them while "
                               "the campaign runs."))
    device_may_hold_secret_items = forms.BooleanField(
        required=False, label=gettext_lazy("Let speakers' phones keep upcoming secret items to rate them offline"),
        help_text=gettext_lazy("Off (the default): secret items are only shown while the phone is connected, one at "
                               "a time, and nothing secret stays on the phone. On: speakers can keep rating without "
                               "a connection, but the next secret items are stored on their phone until rated, and "
                               "anyone who gets hold of the phone could read them."))


class CampaignForm(CampaignGuidanceForm):
    title = forms.CharField(max_length=200, label=gettext_lazy("Title"),
                            help_text=gettext_lazy("For governance staff only: speakers review blind."))
    speaker_title = forms.CharField(
        max_length=SPEAKER_TITLE_LIMIT, required=False, label=gettext_lazy("Name shown to speakers (optional)"),
        help_text=gettext_lazy("Tells speakers this campaign from their others, e.g. “Greetings, spring round”. "
                               "Never name the method: speakers review blind."))
    sample_size = forms.IntegerField(min_value=1, label=gettext_lazy("Sample size"),
                                     help_text=gettext_lazy("How many outputs to rate, stratified by difficulty tier."))
    ratings_per_item = forms.IntegerField(
        min_value=1, max_value=10, initial=3, label=gettext_lazy("Ratings per item"),
        help_text=gettext_lazy("Independent ratings each output needs, by different speakers: 3 or 5, the numbers "
                               "the gate is calibrated for."))
    speakers = SpeakerChoiceField(
        queryset=None, widget=PoolCheckboxes, label=gettext_lazy("Speakers"),
        help_text=gettext_lazy("Speakers of your organization who will rate: those attested as reading the target "
                               "language fluently and the source language at the working level or above, with no "
                               "conflict of interest, and who passed your practice round when it is required."))
    variety = forms.CharField(
        required=False, max_length=100, label=gettext_lazy("Variety (dialect) of the target language"),
        help_text=gettext_lazy("Optional: only speakers attested for this variety can join the pool (compared without "
                               "regard to capitals). Empty: any variety."))
    seed = forms.IntegerField(
        min_value=0, max_value=2**62, label=gettext_lazy("Seed"),
        help_text=gettext_lazy("The same seed draws the same sample again: keep it to reproduce the campaign."))
    show_reference = forms.BooleanField(required=False, label=gettext_lazy("Show the human reference to speakers"),
                                        help_text=gettext_lazy("Off by default: speakers judge the translation on its "
                                                               "own."))
    control_count = forms.IntegerField(
        min_value=0, initial=0, label=gettext_lazy("Hidden control items"),
        help_text=gettext_lazy("Human references shown as if they were candidates; a reliable speaker rates them "
                               "acceptable or excellent. Every speaker rates every control item."))
    repeat_count = forms.IntegerField(
        required=False, min_value=0, max_value=MAX_REPEATS, initial=0,
        label=gettext_lazy("Items each speaker sees twice"),
        help_text=gettext_lazy("A few of each speaker's items come back later in their order, to see whether they "
                               "answer the same way; the second rating never counts in the figures. 0 to 20."))
    deadline = forms.DateTimeField(required=False, widget=forms.DateTimeInput(attrs={"type": "datetime-local"}),
                                   label=gettext_lazy("Deadline"))
    below_threshold_reason = forms.CharField(
        required=False, widget=forms.Textarea(attrs={"rows": 3}), label=gettext_lazy("Why review below the threshold?"),
        help_text=lazy(below_threshold_help, str)())

    field_order = ["title", "speaker_title", "sample_size", "ratings_per_item", "variety", "speakers", "seed",
                   "show_reference", "control_count", "repeat_count", "deadline", "below_threshold_reason",
                   "instructions", "device_may_hold_secret_items"]

    def __init__(self, *args, organization, refusals: dict[int, str], **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["speakers"].queryset = pool_candidates(organization)
        self.fields["speakers"].widget.refusals = refusals
        self.fields["deadline"].help_text = _(
            "Optional, in %(time_zone)s. Speakers with items left get a reminder a day before."
        ) % {"time_zone": timezone.get_current_timezone_name()}
        if not self.is_bound:
            self.initial.setdefault("seed", secrets.randbelow(1_000_000))

    def clean_ratings_per_item(self) -> int:
        return calibrated_ratings(self.cleaned_data["ratings_per_item"])


def calibrated_ratings(value: int) -> int:
    """A number of ratings per item the gate is calibrated for; anything else is refused with the reason."""
    problem = ratings_per_item_problem(value)
    if problem:
        raise forms.ValidationError(problem)
    return value


SHOWN_SALT = "review.item-shown"
# A day of device time is refused as nonsense; anything within it is capped at MAX_RATING_SECONDS.
MAX_DEVICE_MS = 24 * 3600 * 1000


class RatingForm(forms.Form):
    """The rating page's form; the same fields arrive from the page's script as a form post."""

    client_id = forms.UUIDField(widget=forms.HiddenInput, error_messages={
        "required": MISSING_SUBMISSION_ID, "invalid": INVALID_SUBMISSION_ID,
    })
    value = forms.ChoiceField(choices=RATING_CHOICES,
                              error_messages={"required": CHOOSE_A_RATING, "invalid_choice": UNKNOWN_RATING})
    flags = forms.MultipleChoiceField(required=False, widget=forms.CheckboxSelectMultiple, label=FLAGS_LABEL,
                                      choices=[(flag, FLAG_LABELS[flag]) for flag in FLAG_FIELDS])
    comment = forms.CharField(required=False, max_length=5000, widget=forms.Textarea(attrs={"rows": 2}),
                              label=COMMENT_LABEL)
    correction = forms.CharField(required=False, max_length=5000, widget=forms.Textarea(attrs={"rows": 2}),
                                 label=CORRECTION_LABEL)
    active_ms = forms.IntegerField(
        required=False, min_value=0, max_value=MAX_DEVICE_MS, widget=forms.HiddenInput,
        label=gettext_lazy("Working time"),
        error_messages={"invalid": ACTIVE_TIME_INVALID, "min_value": ACTIVE_TIME_INVALID,
                        "max_value": ACTIVE_TIME_INVALID})
    shown = forms.CharField(required=False, max_length=200, widget=forms.HiddenInput,
                            label=gettext_lazy("Time shown"))

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if not self.is_bound:
            self.initial.setdefault("client_id", uuid.uuid4())

    def submission(self, item: uuid.UUID) -> Submission:
        """The rating with its working time, which only counts with the server's signed proof of when it showed
        this item (`shown`): the page's own count when its script sent one, never more than the time since then;
        else that time itself, capped at the idle cap. Without the proof the rating is kept, untimed."""
        data = self.cleaned_data
        shown_at = shown_time(data.get("shown") or "", item)
        since = None if shown_at is None else max(time.time() - shown_at, 0)
        active, timed_by = None, ""
        if since is not None and data.get("active_ms") is not None:
            active, timed_by = min(data["active_ms"] / 1000, MAX_RATING_SECONDS, since + CLOCK_SLACK_SECONDS), "device"
        elif since is not None:
            active, timed_by = min(since, IDLE_CAP_SECONDS), "server"
        return Submission(client_id=data["client_id"], value=data["value"], flags=frozenset(data["flags"]),
                          comment=data["comment"], correction=data["correction"], active_seconds=active,
                          timed_by=timed_by, shown_seconds_ago=since)


def shown_token(item: uuid.UUID) -> str:
    """When the server showed this item, signed: the form sends it back with the rating."""
    return signing.Signer(salt=SHOWN_SALT).sign(f"{item}:{int(time.time())}")


def shown_time(token: str, item: uuid.UUID) -> float | None:
    """The time in a `shown_token` for this item; None when it is missing, forged or another item's."""
    try:
        value = signing.Signer(salt=SHOWN_SALT).unsign(token)
    except signing.BadSignature:
        return None
    shown_item, _sep, stamp = value.rpartition(":")
    if shown_item != str(item) or not stamp.isdigit():
        return None
    return float(stamp)


class DecisionForm(forms.Form):
    outcome = forms.ChoiceField(widget=forms.RadioSelect, label=gettext_lazy("Outcome"), choices=[
        ("approve", gettext_lazy("Approve: the community accepts this method")),
        ("reject", gettext_lazy("Reject: the community does not accept it")),
    ])
    rationale = forms.CharField(widget=forms.Textarea(attrs={"rows": 4}), label=gettext_lazy("Rationale"),
                                help_text=gettext_lazy("Kept with the decision and in the audit log."))
    against_recommendation = forms.BooleanField(
        required=False, label=gettext_lazy("The community approves against the gate's recommendation"),
        help_text=gettext_lazy("Needed to approve when the recommendation is not a pass; say why in the rationale."))

    def __init__(self, *args, can_revoke=False, **kwargs):
        super().__init__(*args, **kwargs)
        if can_revoke:
            self.fields["outcome"].choices = [*self.fields["outcome"].choices,
                                              ("revoke", _("Revoke the approval in force"))]


class PlanForm(forms.Form):
    """The numbers a campaign is planned with, before it is opened (a GET form: nothing is stored); the page's
    script fills it from the campaign form as that changes."""

    plan_size = forms.IntegerField(min_value=1, label=gettext_lazy("Planned sample size"))
    plan_ratings = forms.IntegerField(min_value=1, max_value=10, label=gettext_lazy("Planned ratings per item"))
    plan_speakers = forms.IntegerField(min_value=1, max_value=500, label=gettext_lazy("Speakers in the pool"))

    def clean_plan_ratings(self) -> int:
        return calibrated_ratings(self.cleaned_data["plan_ratings"])

    def __init__(self, *args, outputs: int, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["plan_size"].max_value = outputs
        self.fields["plan_size"].validators.append(MaxValueValidator(outputs))
        self.fields["plan_size"].widget.attrs["max"] = outputs


class SpeakerForm(forms.Form):
    speaker = forms.ModelChoiceField(queryset=None, widget=PoolSelect, label=gettext_lazy("Add a speaker"),
                                     empty_label=gettext_lazy("Choose a speaker"))

    def __init__(self, *args, organization, exclude=(), refusals: dict[int, str] | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["speaker"].queryset = pool_candidates(organization).exclude(pk__in=list(exclude))
        self.fields["speaker"].label_from_instance = lambda user: user.email
        self.fields["speaker"].widget.refusals = refusals or {}


class GatePolicyForm(forms.ModelForm):
    class Meta:
        model = GatePolicy
        fields = ["require_complete_coverage", "min_usable_lower_bound", "min_tier_usable_share",
                  "max_reject_share", "min_ac1", "min_rated_items", "min_distinct_speakers", "standard1_min_chrf"]
        labels = {
            "require_complete_coverage": gettext_lazy("Require every item to have all its ratings"),
            "min_usable_lower_bound": gettext_lazy("Lowest acceptable lower bound of the usable share"),
            "min_tier_usable_share": gettext_lazy("Lowest usable share in any difficulty tier"),
            "max_reject_share": gettext_lazy("Highest share of items rated reject"),
            "min_ac1": gettext_lazy("Lowest agreement between speakers on usable / not usable (Gwet's AC1)"),
            "min_rated_items": gettext_lazy("Fewest rated items to conclude anything"),
            "min_distinct_speakers": gettext_lazy("Fewest distinct speakers whose ratings count"),
            "standard1_min_chrf": gettext_lazy("Corpus chrF++ from which a standard/1 card is ready for review"),
        }
        help_texts = {
            "min_usable_lower_bound": gettext_lazy("From 0.50 to 0.95: the lower end of the usable share's 95% "
                                                   "interval must reach it."),
            "min_tier_usable_share": gettext_lazy("From 0.25 to 0.95, for each difficulty tier (a tier of fewer than "
                                                  "40 rated items is judged with its neighbour)."),
            "max_reject_share": gettext_lazy("From 0 to 0.50."),
            "min_ac1": gettext_lazy("From 0.40 to 1."),
            "standard1_min_chrf": gettext_lazy(
                "standard/1 cards have no composite. From this chrF++ (0–100) governance staff open a campaign "
                "without writing why; empty: every such card needs a written reason."),
        }
        widgets = {name: forms.NumberInput(attrs={"step": "0.01", "min": str(low), "max": str(high)})
                   for name, (low, high) in POLICY_RANGES.items()}
        widgets["standard1_min_chrf"] = forms.NumberInput(attrs={"step": "0.1", "min": "0", "max": "100"})

    def clean(self):
        data = super().clean()
        for name, message in policy_problems(data):
            self.add_error(name, message)
        trigger = data.get("standard1_min_chrf")
        if trigger is not None and not 0 <= trigger <= 100:
            self.add_error("standard1_min_chrf", str(CHRF_TRIGGER_RANGE))
        return data


EXAMPLE_LIMIT = 2000


class RatingExamplesForm(forms.ModelForm):
    """The community's examples of each rating, as the rating page shows them to speakers."""

    class Meta:
        model = RatingExamples
        fields = ["reject", "gist", "acceptable", "excellent", "cannot_judge"]
        labels = {
            "reject": gettext_lazy("Reject"),
            "gist": gettext_lazy("Gist"),
            "acceptable": gettext_lazy("Acceptable"),
            "excellent": gettext_lazy("Excellent"),
            "cannot_judge": gettext_lazy("Can't judge"),
        }
        help_texts = {
            "reject": gettext_lazy("Wrong or unusable: the meaning is lost or changed."),
            "gist": gettext_lazy("The meaning is clear, but the wording is wrong."),
            "acceptable": gettext_lazy("Correct, with minor issues."),
            "excellent": gettext_lazy("As good as a translation by a fluent person."),
            "cannot_judge": gettext_lazy("When a speaker should skip an item rather than rate it."),
        }
        widgets = {name: forms.Textarea(attrs={"rows": 3, "maxlength": EXAMPLE_LIMIT})
                   for name in ["reject", "gist", "acceptable", "excellent", "cannot_judge"]}

    def clean(self):
        data = super().clean()
        for name in self.Meta.fields:
            if len(data.get(name) or "") > EXAMPLE_LIMIT:
                self.add_error(name, _("An example is limited to %(limit)s characters.") % {"limit": EXAMPLE_LIMIT})
        return data


class CreditForm(forms.Form):
    """How one organization credits the speaker."""

    choice = forms.ChoiceField(widget=forms.RadioSelect, label=gettext_lazy("How to credit you"), choices=[
        ("name", gettext_lazy("By my name")),
        ("display_name", gettext_lazy("By a name I choose")),
        ("anonymous", gettext_lazy("Anonymously: count me, never name me")),
    ])
    full_name = forms.CharField(required=False, max_length=150, label=gettext_lazy("Your name"),
                                help_text=gettext_lazy("Your account's name, as every organization that credits you "
                                                       "by name shows it."))
    display_name = forms.CharField(required=False, max_length=100, label=gettext_lazy("Name to be credited by"),
                                   help_text=gettext_lazy("For this organization only."))


class PayPolicyForm(forms.Form):
    hourly_rate = forms.DecimalField(min_value=0, max_value=99999.99, decimal_places=2, max_digits=7,
                                     label=gettext_lazy("Hourly rate"),
                                     help_text=gettext_lazy("Paid per hour of active rating time."))
    currency = forms.CharField(min_length=3, max_length=3, label=gettext_lazy("Currency"),
                               help_text=gettext_lazy("Three-letter ISO 4217 code, such as CAD."))
    default_seconds_per_rating = forms.IntegerField(
        min_value=1, max_value=MAX_RATING_SECONDS, initial=45, label=gettext_lazy("Seconds per rating, before history"),
        help_text=gettext_lazy("What cost estimates assume until your speakers have 30 timed ratings; then their "
                               "median is used."))


class CampaignRateForm(forms.Form):
    hourly_rate = forms.DecimalField(required=False, min_value=0, max_value=99999.99, decimal_places=2, max_digits=7,
                                     label=gettext_lazy("This campaign's hourly rate"),
                                     help_text=gettext_lazy("Empty: the organization's rate."))
    currency = forms.CharField(required=False, max_length=3, label=gettext_lazy("Currency"))

    def clean(self):
        data = super().clean()
        if data.get("hourly_rate") is not None and not data.get("currency"):
            self.add_error("currency", _("Give the rate's currency, such as CAD."))
        return data
