"""How pages show an audit event's details: short labelled phrases in the reader's language ("Reason: …; Uses:
public_release, evaluation"), never Python's reprs. The log itself keeps its codes and raw values, which its hashes
cover and its CSV export carries; only the display is translated. Every detail key the code writes has a label here
(tests/test_audit_text.py walks the code for them), so a page never shows a bare key in French."""

from collections.abc import Mapping
from decimal import Decimal

from django.utils import formats
from django.utils.functional import Promise
from django.utils.translation import pgettext, pgettext_lazy

DETAIL_LABELS: dict[str, Promise] = {
    "acceptable": pgettext_lazy("audit detail", "Acceptable example"),
    "added": pgettext_lazy("audit detail", "Added"),
    "after": pgettext_lazy("audit detail", "After"),
    "against_recommendation": pgettext_lazy("audit detail", "Against the recommendation"),
    "amount": pgettext_lazy("audit detail", "Amount"),
    "before": pgettext_lazy("audit detail", "Before"),
    "below_threshold_reason": pgettext_lazy("audit detail", "Why reviewed below the threshold"),
    "cannot_judge": pgettext_lazy("audit detail", "Cannot-judge example"),
    "change": pgettext_lazy("audit detail", "Change"),
    "changed": pgettext_lazy("audit detail", "Changed"),
    "checked": pgettext_lazy("audit detail", "Checked"),
    "choice": pgettext_lazy("audit detail", "Choice"),
    "code": pgettext_lazy("audit detail", "Code"),
    "comment": pgettext_lazy("audit detail", "Comment"),
    "consent_record": pgettext_lazy("audit detail", "Consent record"),
    "control_items": pgettext_lazy("audit detail", "Control items"),
    "corrects": pgettext_lazy("audit detail", "Corrects payment"),
    "count": pgettext_lazy("audit detail", "Count"),
    "counted": pgettext_lazy("audit detail", "Counted"),
    "currency": pgettext_lazy("audit detail", "Currency"),
    "dataset": pgettext_lazy("audit detail", "Dataset"),
    "decision": pgettext_lazy("audit detail", "Decision"),
    "decision_in_force": pgettext_lazy("audit detail", "Decision in force"),
    "default_seconds_per_rating": pgettext_lazy("audit detail", "Default seconds per rating"),
    "dependency": pgettext_lazy("audit detail", "Dependency"),
    "deployable": pgettext_lazy("audit detail", "Deployable from"),
    "developer_keeps": pgettext_lazy("audit detail", "The developer keeps"),
    "device_may_hold_secret_items": pgettext_lazy("audit detail", "Devices may hold secret items"),
    "direction": pgettext_lazy("audit detail", "Writing direction"),
    "document": pgettext_lazy("audit detail", "Document"),
    "document_reference": pgettext_lazy("audit detail", "Document reference"),
    "eligible": pgettext_lazy("audit detail", "May sign (n)"),
    "email": pgettext_lazy("audit detail", "E-mail"),
    "emerging": pgettext_lazy("audit detail", "Emerging from"),
    "entries": pgettext_lazy("audit detail", "Entries"),
    "entry": pgettext_lazy("audit detail", "Entry"),
    "excellent": pgettext_lazy("audit detail", "Excellent example"),
    "excluded": pgettext_lazy("audit detail", "Excluded"),
    "excluded_speakers": pgettext_lazy("audit detail", "Speakers left out"),
    "fast": pgettext_lazy("audit detail", "Restriction (one signature)"),
    "fields": pgettext_lazy("audit detail", "Fields"),
    "fluent": pgettext_lazy("audit detail", "Fluent from"),
    "format": pgettext_lazy("audit detail", "Format"),
    "from": pgettext_lazy("audit detail", "From"),
    "from_segment": pgettext_lazy("audit detail", "From segment"),
    "from_version": pgettext_lazy("audit detail", "From version"),
    "functional": pgettext_lazy("audit detail", "Functional from"),
    "gist": pgettext_lazy("audit detail", "Gist example"),
    "governance_gets": pgettext_lazy("audit detail", "Governance gets"),
    "granted_by": pgettext_lazy("audit detail", "Granted by"),
    "granted_on": pgettext_lazy("audit detail", "Granted on"),
    "held_out": pgettext_lazy("audit detail", "Held-out entries"),
    "hourly_rate": pgettext_lazy("audit detail", "Hourly rate"),
    "instructions": pgettext_lazy("audit detail", "Instructions"),
    "invitation": pgettext_lazy("audit detail", "Invitation"),
    "items": pgettext_lazy("audit detail", "Items"),
    "kind": pgettext_lazy("audit detail", "Kind"),
    "label": pgettext_lazy("audit detail", "Label"),
    "label_set_sha256": pgettext_lazy("audit detail", "Hash of the restrictive labels"),
    "label_type": pgettext_lazy("audit detail", "Label type"),
    "labels": pgettext_lazy("audit detail", "Labels"),
    "language": pgettext_lazy("audit detail", "Language"),
    "language_pair": pgettext_lazy("audit detail", "Language pair"),
    "languages": pgettext_lazy("audit detail", "Languages"),
    "manifest_sha256": pgettext_lazy("audit detail", "Manifest SHA-256"),
    "max_reject_share": pgettext_lazy("audit detail", "Largest reject share"),
    "method": pgettext_lazy("audit detail", "Method"),
    "method_id": pgettext_lazy("audit detail", "Method"),
    "min_ac1": pgettext_lazy("audit detail", "Smallest agreement (AC1)"),
    "min_alpha": pgettext_lazy("audit detail", "Smallest agreement (alpha)"),
    "min_distinct_speakers": pgettext_lazy("audit detail", "Fewest speakers"),
    "min_open_hours": pgettext_lazy("audit detail", "Least open time (hours)"),
    "min_rated_items": pgettext_lazy("audit detail", "Fewest rated items"),
    "min_tier_usable_share": pgettext_lazy("audit detail", "Smallest usable share per tier"),
    "min_usable_lower_bound": pgettext_lazy("audit detail", "Usable share's lower bound at least"),
    "moved": pgettext_lazy("audit detail", "Entries moved"),
    "moves": pgettext_lazy("audit detail", "Moves"),
    "name": pgettext_lazy("audit detail", "Name"),
    "new": pgettext_lazy("audit detail", "New"),
    "note": pgettext_lazy("audit detail", "Note"),
    "outcome": pgettext_lazy("audit detail", "Outcome"),
    "package": pgettext_lazy("audit detail", "Package"),
    "package_sha256": pgettext_lazy("audit detail", "Package SHA-256"),
    "paid_on": pgettext_lazy("audit detail", "Paid on"),
    "pass_mark_percent": pgettext_lazy("audit detail", "Pass mark (%)"),
    "paths": pgettext_lazy("audit detail", "Paths"),
    "payload_hash": pgettext_lazy("audit detail", "Payload hash"),
    "previous_hash": pgettext_lazy("audit detail", "Previous hash"),
    "project": pgettext_lazy("audit detail", "Local Contexts Hub project"),
    "ratings": pgettext_lazy("audit detail", "Ratings"),
    "ratings_per_item": pgettext_lazy("audit detail", "Ratings per item"),
    "ratings_withdrawn": pgettext_lazy("audit detail", "Ratings withdrawn"),
    "rationale": pgettext_lazy("audit detail", "Rationale"),
    "reading": pgettext_lazy("audit detail", "Reading"),
    "reason": pgettext_lazy("audit detail", "Reason"),
    "reassigned": pgettext_lazy("audit detail", "Items reassigned"),
    "recommendation": pgettext_lazy("audit detail", "Recommendation"),
    "reference": pgettext_lazy("audit detail", "Reference"),
    "reject": pgettext_lazy("audit detail", "Reject example"),
    "released": pgettext_lazy("audit detail", "Items released"),
    "removed": pgettext_lazy("audit detail", "Removed"),
    "repeat_count": pgettext_lazy("audit detail", "Repeated items"),
    "replaces": pgettext_lazy("audit detail", "Replaces"),
    "reproduction": pgettext_lazy("audit detail", "Reproduction"),
    "require_complete_coverage": pgettext_lazy("audit detail", "Every item rated"),
    "required": pgettext_lazy("audit detail", "Required"),
    "restrictive": pgettext_lazy("audit detail", "Restrictive"),
    "retry_wait_hours": pgettext_lazy("audit detail", "Wait before a retry (hours)"),
    "revision": pgettext_lazy("audit detail", "Revision"),
    "right": pgettext_lazy("audit detail", "Right answers"),
    "rights_holder": pgettext_lazy("audit detail", "Rights holder"),
    "role": pgettext_lazy("audit detail", "Role"),
    "run_card": pgettext_lazy("audit detail", "Run card"),
    "run_id": pgettext_lazy("audit detail", "Run"),
    "sample_size": pgettext_lazy("audit detail", "Sample size"),
    "script": pgettext_lazy("audit detail", "Script"),
    "seed": pgettext_lazy("audit detail", "Seed"),
    "segment": pgettext_lazy("audit detail", "Segment"),
    "segments": pgettext_lazy("audit detail", "Segments"),
    "signers": pgettext_lazy("audit detail", "Signers counted"),
    "speaker": pgettext_lazy("audit detail", "Speaker"),
    "speakers": pgettext_lazy("audit detail", "Speakers"),
    "stale_sign_offs": pgettext_lazy("audit detail", "Sign-offs made stale"),
    "stale_signatures": pgettext_lazy("audit detail", "Signatures made stale"),
    "standard1_min_chrf": pgettext_lazy("audit detail", "Smallest chrF++ (standard/1)"),
    "strings": pgettext_lazy("audit detail", "Strings"),
    "subject": pgettext_lazy("audit detail", "About"),
    "submission": pgettext_lazy("audit detail", "Submission"),
    "target": pgettext_lazy("audit detail", "Target"),
    "target_language": pgettext_lazy("audit detail", "Target language"),
    "terms_version": pgettext_lazy("audit detail", "Terms version"),
    "threshold": pgettext_lazy("audit detail", "Signatures needed (k)"),
    "tier": pgettext_lazy("audit detail", "Tier"),
    "to": pgettext_lazy("audit detail", "To"),
    "token": pgettext_lazy("audit detail", "API token"),
    "translations_withdrawn": pgettext_lazy("audit detail", "Translations withdrawn"),
    "unchanged": pgettext_lazy("audit detail", "Unchanged"),
    "updated": pgettext_lazy("audit detail", "Updated"),
    "user": pgettext_lazy("audit detail", "User"),
    "uses": pgettext_lazy("audit detail", "Uses"),
    "variety": pgettext_lazy("audit detail", "Variety"),
    "verdict": pgettext_lazy("audit detail", "Verdict"),
    "version": pgettext_lazy("audit detail", "Version"),
    "where": pgettext_lazy("audit detail", "Where"),
    "writing": pgettext_lazy("audit detail", "Writing"),
}


def detail_value(value: object) -> str:
    """A detail's value as a reader reads it: lists joined, yes/no for booleans, numbers in the reader's format."""
    if value is None or value == "":
        return "—"
    if isinstance(value, bool):
        return pgettext("audit detail value", "yes") if value else pgettext("audit detail value", "no")
    if isinstance(value, float | Decimal):
        return formats.number_format(value)
    if isinstance(value, Mapping):
        return ", ".join(f"{DETAIL_LABELS.get(key, key)} {detail_value(item)}" for key, item in value.items())
    if isinstance(value, list | tuple | set):
        return ", ".join(detail_value(item) for item in value) or "—"
    return str(value)


def detail_label(key: str) -> str:
    found = DETAIL_LABELS.get(key)
    return str(found) if found is not None else key.replace("_", " ")


def readable_details(details: Mapping) -> list[tuple[str, str]]:
    return [(detail_label(key), detail_value(value)) for key, value in details.items()]


def details_line(details: Mapping) -> str:
    """The details on one line ("Label: value; …"); the separator follows the reader's typography."""
    separator = pgettext("audit detail separator", "%(label)s: %(value)s")
    return "; ".join(separator % {"label": label, "value": value} for label, value in readable_details(details))
