"""Every endpoint's authorization: a table of route × role → expected GET status, checked exhaustively.

Every route of the URL configuration must have a row (a new route without one fails the first test);
django-admin and allauth's account pages are covered by rules on their prefix. Object-level access:
other organizations' objects answer 404 on every verb.
"""

import uuid
from datetime import date

import pytest
from django.test import Client

from accounts.services import create_api_token
from corpus.models import Entry, StagedImport
from corpus.services import import_corpus
from governance.services import propose_policy
from languages.services import add_interface_language
from leaderboard.services import submit_run_card
from organizations.services import invite_member
from review import services as review_services
from review.models import Assignment
from speakers.services import save_practice_item, start_practice
from submissions.models import ParticipationTerms

from .cards import body, make_card
from .conftest import corpus_bytes, entry, member, publish
from .review_setup import gold_card, settings_for
from .test_visibility import walk

pytestmark = pytest.mark.django_db

ROLES = ("anonymous", "developer", "speaker", "outsider", "curator", "governance", "maintainer")
LOGIN = 302  # sent to the sign-in page
ALL = dict.fromkeys(ROLES)


def expect(default: int, **by_role: int) -> dict[str, int]:
    """Expected statuses: `default` for every role, with exceptions by role."""
    return {role: by_role.get(role, default) for role in ROLES}


def signed_in(default: int, anonymous: int = LOGIN, **by_role: int) -> dict[str, int]:
    return expect(default, anonymous=anonymous, **by_role)


STEWARD_STAFF_ONLY = signed_in(404, curator=200, governance=200)
GOVERNANCE_ONLY = signed_in(404, governance=200)
# The gold card's dataset is not public: only the steward's staff see the card (its per-entry output only
# its governance staff, inside the 200).
STEWARD_READERS = expect(404, curator=200, governance=200)

# route pattern (as the URL resolver spells it) → (URL built from the world, expected status per role)
TABLE = {
    "^": ("/", expect(200)),
    "^api/v1/": ("/api/v1/", expect(200)),
    "^api/v1/<drf_format_suffix:format>": ("/api/v1/.json", expect(200)),
    "^api/v1/corpus-imports/": ("/api/v1/corpus-imports/", expect(405, anonymous=401)),
    "^api/v1/dataset-versions/$": ("/api/v1/dataset-versions/", expect(200)),
    "^api/v1/dataset-versions/(?P<pk>[^/.]+)/$": ("/api/v1/dataset-versions/{private_version}/",
                                                  expect(404, curator=200, governance=200)),
    "^api/v1/dataset-versions/(?P<pk>[^/.]+)/entries/$": ("/api/v1/dataset-versions/{private_version}/entries/",
                                                           expect(404, curator=200, governance=200)),
    r"^api/v1/dataset-versions/(?P<pk>[^/.]+)/entries\.(?P<format>[a-z0-9]+)/?$": (
        "/api/v1/dataset-versions/{private_version}/entries.json", expect(404, curator=200, governance=200)),
    "^api/v1/dataset-versions/(?P<pk>[^/.]+)/export/$": ("/api/v1/dataset-versions/{private_version}/export/",
                                                          expect(404, curator=200, governance=200)),
    r"^api/v1/dataset-versions/(?P<pk>[^/.]+)/export\.(?P<format>[a-z0-9]+)/?$": (
        "/api/v1/dataset-versions/{private_version}/export.json", expect(404, curator=200, governance=200)),
    # The public download of a private version: only the steward's staff see the version at all.
    "^api/v1/dataset-versions/(?P<pk>[^/.]+)/public/$": ("/api/v1/dataset-versions/{private_version}/public/",
                                                         expect(404, curator=200, governance=200)),
    r"^api/v1/dataset-versions/(?P<pk>[^/.]+)/public\.(?P<format>[a-z0-9]+)/?$": (
        "/api/v1/dataset-versions/{private_version}/public.json", expect(404, curator=200, governance=200)),
    # The upstream harness's doors: its install read lists what the leaderboard lists to anyone (it reads tokens,
    # not sessions); the others are written to (POST) only.
    "^supabase/rest/v1/run_cards": ("/supabase/rest/v1/run_cards", expect(200)),
    "^supabase/rest/v1/run_card_entries": ("/supabase/rest/v1/run_card_entries", expect(405)),
    "^supabase/rest/v1/datasets": ("/supabase/rest/v1/datasets", expect(405)),
    # The languages the harness reads when it starts, public records; the compute queue this site does not keep;
    # any other table, answered as PostgREST answers one it does not have.
    "^supabase/rest/v1/trading_card_index": ("/supabase/rest/v1/trading_card_index", expect(200)),
    "^supabase/rest/v1/trading_card_detail": ("/supabase/rest/v1/trading_card_detail", expect(200)),
    "^supabase/rest/v1/rpc/queue_top": ("/supabase/rest/v1/rpc/queue_top", expect(405)),
    "^supabase/rest/v1/<path:name>": ("/supabase/rest/v1/queue_items", expect(404)),
    "^supabase/functions/v1/submit-run": ("/supabase/functions/v1/submit-run", expect(405)),
    "^supabase/auth/v1/token": ("/supabase/auth/v1/token", expect(405)),
    r"^api/v1/dataset-versions/(?P<pk>[^/.]+)\.(?P<format>[a-z0-9]+)/?$": (
        "/api/v1/dataset-versions/{private_version}.json", expect(404, curator=200, governance=200)),
    r"^api/v1/dataset-versions\.(?P<format>[a-z0-9]+)/?$": ("/api/v1/dataset-versions.json", expect(200)),
    "^api/v1/datasets/$": ("/api/v1/datasets/", expect(200)),
    "^api/v1/datasets/(?P<identifier>[A-Za-z0-9][A-Za-z0-9._-]*)/$": (
        "/api/v1/datasets/private-set/", expect(404, curator=200, governance=200)),
    r"^api/v1/datasets/(?P<identifier>[A-Za-z0-9][A-Za-z0-9._-]*)\.(?P<format>[a-z0-9]+)/?$": (
        "/api/v1/datasets/private-set.json", expect(404, curator=200, governance=200)),
    r"^api/v1/datasets\.(?P<format>[a-z0-9]+)/?$": ("/api/v1/datasets.json", expect(200)),
    "^api/v1/docs/": ("/api/v1/docs/", expect(200)),
    "^api/v1/entries/$": ("/api/v1/entries/", expect(200)),
    "^api/v1/entries/(?P<pk>[^/.]+)/$": ("/api/v1/entries/{gold_entry}/", expect(404, curator=200, governance=200)),
    r"^api/v1/entries/(?P<pk>[^/.]+)\.(?P<format>[a-z0-9]+)/?$": (
        "/api/v1/entries/{gold_entry}.json", expect(404, curator=200, governance=200)),
    r"^api/v1/entries\.(?P<format>[a-z0-9]+)/?$": ("/api/v1/entries.json", expect(200)),
    "^api/v1/leaderboard/": ("/api/v1/leaderboard/", expect(200)),
    "^api/v1/leaderboard/<uuid:public_id>/method-config/": (
        "/api/v1/leaderboard/{dev_card}/method-config/", expect(200)),
    "^api/v1/methods/": ("/api/v1/methods/", expect(405, anonymous=401)),
    "^api/v1/run-cards/": ("/api/v1/run-cards/", expect(405, anonymous=401)),
    "^api/v1/run-cards/<uuid:public_id>/": ("/api/v1/run-cards/{gold_card}/", STEWARD_READERS),
    "^api/v1/run-cards/<uuid:public_id>/gds-verification/": (
        "/api/v1/run-cards/{gold_card}/gds-verification/", expect(403, anonymous=401, maintainer=405)),
    # GET is never answered; who may POST is tested in tests/test_legitimacy.py.
    "^api/v1/run-cards/<uuid:public_id>/disqualification/": (
        "/api/v1/run-cards/{gold_card}/disqualification/", expect(405, anonymous=401)),
    "^api/v1/methods/<str:method_id>/disqualification/": (
        "/api/v1/methods/no-such-method/disqualification/", expect(403, anonymous=401, maintainer=405)),
    "^api/v1/disqualifications/<int:pk>/lift/": ("/api/v1/disqualifications/1/lift/", expect(405, anonymous=401)),
    "^api/v1/run-cards/<uuid:public_id>/results/": (
        "/api/v1/run-cards/{gold_card}/results/", STEWARD_READERS),
    "^api/v1/schema/": ("/api/v1/schema/", expect(200)),
    "^datasets/": ("/datasets/", expect(200)),
    "^datasets/d/<str:identifier>/": ("/datasets/d/private-set/", expect(404, curator=302, governance=302)),
    "^datasets/d/<str:identifier>/consent/": ("/datasets/d/public-set/consent/", GOVERNANCE_ONLY),
    "^datasets/d/<str:identifier>/labels/": ("/datasets/d/public-set/labels/", GOVERNANCE_ONLY),
    "^datasets/d/<str:identifier>/consent/<int:pk>/document/": (
        "/datasets/d/public-set/consent/{consent}/document/", GOVERNANCE_ONLY),
    "^datasets/d/<str:identifier>/consent/<int:pk>/revoke/": (
        "/datasets/d/public-set/consent/{consent}/revoke/", GOVERNANCE_ONLY),
    "^datasets/entries/<int:pk>/": ("/datasets/entries/{gold_entry}/", expect(404, curator=200, governance=200)),
    "^datasets/entries/<int:pk>/edit/": ("/datasets/entries/{private_entry}/edit/", STEWARD_STAFF_ONLY),
    "^datasets/import/": ("/datasets/import/", signed_in(403, outsider=200, curator=200, governance=200)),
    "^datasets/versions/<int:pk>/": ("/datasets/versions/{private_version}/",
                                     expect(404, curator=200, governance=200)),
    "^datasets/versions/<int:pk>/bulk-import/": ("/datasets/versions/{private_version}/bulk-import/",
                                                 STEWARD_STAFF_ONLY),
    "^datasets/versions/<int:pk>/bulk-import/<int:staged_pk>/confirm/": (
        "/datasets/versions/{private_version}/bulk-import/{staged}/confirm/", signed_in(405)),
    "^datasets/versions/<int:pk>/entries/": ("/datasets/versions/{private_version}/entries/",
                                             expect(404, curator=200, governance=200)),
    "^datasets/versions/<int:pk>/entries/new/": ("/datasets/versions/{private_version}/entries/new/",
                                                 STEWARD_STAFF_ONLY),
    "^datasets/versions/<int:pk>/held-out/activate/": ("/datasets/versions/{private_version}/held-out/activate/",
                                                       signed_in(404, curator=403, governance=200)),
    "^datasets/versions/<int:pk>/rotate-segments/": ("/datasets/versions/{private_version}/rotate-segments/",
                                                     signed_in(404, curator=403, governance=200)),
    "^datasets/versions/<int:pk>/export.json": ("/datasets/versions/{private_version}/export.json",
                                                expect(404, curator=200, governance=200)),
    "^datasets/versions/<int:pk>/export/entries.<str:file_format>": (
        "/datasets/versions/{private_version}/export/entries.csv", expect(404, curator=200, governance=200)),
    "^datasets/versions/<int:pk>/next-version/": ("/datasets/versions/{private_version}/next-version/",
                                                  signed_in(405)),
    "^datasets/versions/<int:pk>/publication/": ("/datasets/versions/{private_version}/publication/",
                                                 signed_in(405)),
    "^invitations/<str:token>/": ("/invitations/{invitation}/", expect(200)),
    "^jsi18n/": ("/jsi18n/", expect(200)),
    "^language/": ("/language/", expect(200)),
    "^leaderboard/": ("/leaderboard/", expect(200)),
    "^leaderboard/cards/<uuid:public_id>/": ("/leaderboard/cards/{gold_card}/", STEWARD_READERS),
    "^leaderboard/cards/<uuid:public_id>/disqualify/": ("/leaderboard/cards/{gold_card}/disqualify/",
                                                        signed_in(405)),
    "^leaderboard/methods/<str:method_id>/disqualify/": ("/leaderboard/methods/no-such-method/disqualify/",
                                                         signed_in(405)),
    "^leaderboard/disqualifications/<int:pk>/lift/": ("/leaderboard/disqualifications/1/lift/", signed_in(405)),
    "^methods/<str:method_id>/": ("/methods/no-such-method/", expect(404)),
    "^orgs/<slug:slug>/": ("/orgs/steward/", expect(200)),
    "^orgs/<slug:slug>/languages/": ("/orgs/steward/languages/", GOVERNANCE_ONLY),
    "^orgs/<slug:slug>/languages/<str:code>/": ("/orgs/steward/languages/crk/", GOVERNANCE_ONLY),
    "^orgs/<slug:slug>/dashboard/": ("/orgs/steward/dashboard/", GOVERNANCE_ONLY),
    "^orgs/<slug:slug>/decisions/": ("/orgs/steward/decisions/", GOVERNANCE_ONLY),
    "^orgs/<slug:slug>/commitments/": ("/orgs/steward/commitments/", GOVERNANCE_ONLY),
    "^decisions/<uuid:public_id>/": ("/decisions/{decision}/", GOVERNANCE_ONLY),
    # Written to (POST) only; who may sign, change, withdraw or execute: tests/test_governance_decisions.py.
    "^decisions/<uuid:public_id>/sign/": ("/decisions/{decision}/sign/", signed_in(405)),
    "^decisions/<uuid:public_id>/amend/": ("/decisions/{decision}/amend/", signed_in(405)),
    "^decisions/<uuid:public_id>/withdraw/": ("/decisions/{decision}/withdraw/", signed_in(405)),
    "^decisions/<uuid:public_id>/execute/": ("/decisions/{decision}/execute/", signed_in(405)),
    "^orgs/<slug:slug>/audit/": ("/orgs/steward/audit/", expect(403, governance=200)),
    "^orgs/<slug:slug>/members/<int:membership_id>/remove/": ("/orgs/steward/members/1/remove/", signed_in(405)),
    "^orgs/<slug:slug>/members/<int:membership_id>/role/": ("/orgs/steward/members/1/role/", signed_in(405)),
    "^orgs/<slug:slug>/submissions/": ("/orgs/steward/submissions/", GOVERNANCE_ONLY),
    "^orgs/<slug:slug>/submit/": ("/orgs/steward/submit/", signed_in(200)),
    "^orgs/<slug:slug>/terms/": ("/orgs/steward/terms/", expect(200)),
    "^orgs/<slug:slug>/terms/<str:version>/accept/": ("/orgs/steward/terms/2026-1/accept/", signed_in(405)),
    "^review/": ("/review/", signed_in(200)),
    "^review/c/<uuid:public_id>/": ("/review/c/{campaign}/", signed_in(404, speaker=302)),
    "^review/c/<uuid:public_id>/done/": ("/review/c/{campaign}/done/", signed_in(404, speaker=200)),
    "^review/c/<uuid:public_id>/undo/": ("/review/c/{campaign}/undo/", signed_in(405)),
    "^review/c/<uuid:public_id>/upcoming/": ("/review/c/{campaign}/upcoming/", signed_in(404, speaker=200)),
    "^review/c/<uuid:public_id>/shell/": ("/review/c/{campaign}/shell/", signed_in(404, speaker=200)),
    "^review/sw.js": ("/review/sw.js", expect(200)),
    "^review/offline/": ("/review/offline/", expect(200)),
    "^review/campaigns/": ("/review/campaigns/", signed_in(200)),
    "^review/campaigns/<uuid:public_id>/": ("/review/campaigns/{campaign}/", GOVERNANCE_ONLY),
    "^review/campaigns/<uuid:public_id>/decision/": ("/review/campaigns/{campaign}/decision/", GOVERNANCE_ONLY),
    "^review/campaigns/<uuid:public_id>/ratings.<str:file_format>": (
        "/review/campaigns/{campaign}/ratings.csv", GOVERNANCE_ONLY),
    "^review/campaigns/<uuid:public_id>/speakers/": ("/review/campaigns/{campaign}/speakers/", signed_in(405)),
    "^review/campaigns/<uuid:public_id>/speakers/<int:speaker_id>/exclusion/": (
        "/review/campaigns/{campaign}/speakers/1/exclusion/", signed_in(405)),
    "^review/campaigns/<uuid:public_id>/status/": ("/review/campaigns/{campaign}/status/", signed_in(405)),
    "^review/campaigns/new/<uuid:public_id>/": ("/review/campaigns/new/{gold_card}/", GOVERNANCE_ONLY),
    "^review/items/<uuid:public_id>/": ("/review/items/{assignment}/", signed_in(404, speaker=200)),
    "^review/orgs/<slug:slug>/gate/": ("/review/orgs/steward/gate/", GOVERNANCE_ONLY),
    "^review/orgs/<slug:slug>/calibration/": ("/review/orgs/steward/calibration/", GOVERNANCE_ONLY),
    "^review/orgs/<slug:slug>/rating-examples/": ("/review/orgs/steward/rating-examples/", GOVERNANCE_ONLY),
    "^review/orgs/<slug:slug>/pay/": ("/review/orgs/steward/pay/", GOVERNANCE_ONLY),
    "^review/campaigns/<uuid:public_id>/timesheet/": ("/review/campaigns/{campaign}/timesheet/", GOVERNANCE_ONLY),
    "^review/campaigns/<uuid:public_id>/timesheet.<str:file_format>": (
        "/review/campaigns/{campaign}/timesheet.csv", GOVERNANCE_ONLY),
    "^review/me/": ("/review/me/", signed_in(200)),
    "^review/me/credit/<slug:slug>/": ("/review/me/credit/steward/", signed_in(405)),
    # Nobody in this world has rated: there is nothing of anyone's to withdraw.
    "^review/me/campaigns/<uuid:public_id>/withdraw/": ("/review/me/campaigns/{campaign}/withdraw/", signed_in(404)),
    "^review/me/withdraw-all/": ("/review/me/withdraw-all/", signed_in(404)),
    # Elicitation: curators' pages for the steward's staff; translating and verifying for qualified speakers.
    "^elicit/": ("/elicit/", signed_in(200)),
    "^elicit/new/": ("/elicit/new/", STEWARD_STAFF_ONLY),
    "^elicit/b/<uuid:public_id>/": ("/elicit/b/{batch}/", STEWARD_STAFF_ONLY),
    "^elicit/b/<uuid:public_id>/sources/": ("/elicit/b/{batch}/sources/", signed_in(405)),
    "^elicit/b/<uuid:public_id>/status/": ("/elicit/b/{batch}/status/", signed_in(405)),
    "^elicit/b/<uuid:public_id>/guideline/": ("/elicit/b/{batch}/guideline/", signed_in(405)),
    "^elicit/b/<uuid:public_id>/corpus/": ("/elicit/b/{batch}/corpus/", signed_in(405)),
    "^elicit/b/<uuid:public_id>/dashboard/": ("/elicit/b/{batch}/dashboard/", STEWARD_STAFF_ONLY),
    "^elicit/b/<uuid:public_id>/dashboard.csv": ("/elicit/b/{batch}/dashboard.csv", STEWARD_STAFF_ONLY),
    "^elicit/b/<uuid:public_id>/pay/": ("/elicit/b/{batch}/pay/", GOVERNANCE_ONLY),
    "^elicit/b/<uuid:public_id>/versions/<int:pk>/card.md": ("/elicit/b/{batch}/versions/{batch_version}/card.md",
                                                              STEWARD_STAFF_ONLY),
    "^elicit/b/<uuid:public_id>/translate/": ("/elicit/b/{batch}/translate/", signed_in(404, speaker=302)),
    "^elicit/b/<uuid:public_id>/upcoming/": ("/elicit/b/{batch}/upcoming/", signed_in(404, speaker=200)),
    "^elicit/b/<uuid:public_id>/shell/": ("/elicit/b/{batch}/shell/", signed_in(404, speaker=200)),
    "^elicit/sw.js": ("/elicit/sw.js", expect(200)),
    "^elicit/offline/": ("/elicit/offline/", expect(200)),
    "^elicit/b/<uuid:public_id>/verify/": ("/elicit/b/{batch}/verify/", signed_in(404, speaker=302)),
    "^elicit/b/<uuid:public_id>/verify/upcoming/": ("/elicit/b/{batch}/verify/upcoming/",
                                                    signed_in(404, speaker=200)),
    "^elicit/b/<uuid:public_id>/verify/shell/": ("/elicit/b/{batch}/verify/shell/", signed_in(404, speaker=200)),
    "^elicit/sources/<uuid:public_id>/": ("/elicit/sources/{source}/", signed_in(404, speaker=200)),
    "^elicit/sources/<uuid:public_id>/skip/": ("/elicit/sources/{source}/skip/", signed_in(405)),
    "^elicit/sources/<uuid:public_id>/release/": ("/elicit/sources/{source}/release/", signed_in(405)),
    "^elicit/translations/<uuid:public_id>/": ("/elicit/translations/{translation}/", signed_in(404, speaker=200)),
    "^elicit/translations/<uuid:public_id>/conflict/": ("/elicit/translations/{translation}/conflict/",
                                                         signed_in(405)),
    "^elicit/analyses/<int:pk>/check/": ("/elicit/analyses/{analysis}/check/", signed_in(405)),
    "^elicit/me/": ("/elicit/me/", signed_in(200)),
    "^elicit/me/withdraw/": ("/elicit/me/withdraw/", signed_in(405)),
    "^api/v1/elicitation/batches/<uuid:public_id>/sources/": ("/api/v1/elicitation/batches/{batch}/sources/",
                                                              expect(403, anonymous=401, curator=405,
                                                                     governance=405)),
    "^datasets/versions/<int:pk>/freeze/": ("/datasets/versions/{private_version}/freeze/", signed_in(405)),
    "^review/me/delete-account/": ("/review/me/delete-account/", signed_in(200)),
    "^review/campaigns/<uuid:public_id>/instructions/": ("/review/campaigns/{campaign}/instructions/",
                                                          signed_in(405)),
    "^speakers/": ("/speakers/", signed_in(200)),
    "^speakers/skills/<int:pk>/": ("/speakers/skills/1/", signed_in(405)),
    "^speakers/skills/<int:pk>/remove/": ("/speakers/skills/1/remove/", signed_in(405)),
    "^speakers/vouch/<slug:slug>/": ("/speakers/vouch/steward/", signed_in(404, speaker=200)),
    "^speakers/attestations/<int:pk>/withdraw/": ("/speakers/attestations/1/withdraw/", signed_in(405)),
    "^speakers/orgs/<slug:slug>/": ("/speakers/orgs/steward/", GOVERNANCE_ONLY),
    "^speakers/orgs/<slug:slug>/attest/<int:skill_pk>/": ("/speakers/orgs/steward/attest/1/", signed_in(405)),
    "^speakers/orgs/<slug:slug>/practice/": ("/speakers/orgs/steward/practice/", GOVERNANCE_ONLY),
    "^speakers/orgs/<slug:slug>/practice/items/new/": ("/speakers/orgs/steward/practice/items/new/",
                                                        GOVERNANCE_ONLY),
    "^speakers/orgs/<slug:slug>/practice/items/<int:pk>/": (
        "/speakers/orgs/steward/practice/items/{practice_item}/", GOVERNANCE_ONLY),
    "^speakers/orgs/<slug:slug>/practice/items/<int:pk>/retire/": (
        "/speakers/orgs/steward/practice/items/{practice_item}/retire/", signed_in(405)),
    "^speakers/practice/<slug:slug>/": ("/speakers/practice/steward/", signed_in(404, speaker=200)),
    # The speaker's attempt, unfinished: its result page sends them back to the item they are on.
    "^speakers/practice/<slug:slug>/<int:attempt>/result/": (
        "/speakers/practice/steward/{practice_attempt}/result/", signed_in(404, speaker=302)),
    "^speakers/practice/<slug:slug>/<int:attempt>/<int:position>/": (
        "/speakers/practice/steward/{practice_attempt}/1/", signed_in(404, speaker=200)),
    "^leaderboard/cards/<uuid:public_id>/conflict/": ("/leaderboard/cards/{gold_card}/conflict/", signed_in(405)),
    "^leaderboard/methods/<str:method_id>/conflict/": ("/leaderboard/methods/no-such-method/conflict/",
                                                       signed_in(405)),
    "^leaderboard/conflicts/<int:pk>/withdraw/": ("/leaderboard/conflicts/1/withdraw/", signed_in(405)),
    "^submissions/": ("/submissions/", signed_in(200)),
    "^submissions/<uuid:public_id>/": ("/submissions/{random}/", signed_in(404)),
    "^submissions/<uuid:public_id>/transfer/": ("/submissions/{random}/transfer/", signed_in(404)),
    # Governance staff of the submission's organization only (docs/submissions.md, "Holding and checking the
    # method"): the package, and a permission's document; the others are written to (POST) only, who may:
    # tests/test_methods_in_hand.py.
    "^submissions/<uuid:public_id>/package/": ("/submissions/{random}/package/", signed_in(404)),
    "^submissions/<uuid:public_id>/rights-permissions/<int:pk>/document/": (
        "/submissions/{random}/rights-permissions/1/document/", signed_in(404)),
    "^submissions/<uuid:public_id>/sign-offs/": ("/submissions/{random}/sign-offs/", signed_in(405)),
    "^submissions/<uuid:public_id>/rights-permissions/": ("/submissions/{random}/rights-permissions/",
                                                          signed_in(405)),
    "^submissions/<uuid:public_id>/a1-runs/": ("/submissions/{random}/a1-runs/", signed_in(405)),
    "^submissions/<uuid:public_id>/revision/": ("/submissions/{random}/revision/", signed_in(405)),
    "^transfers/<uuid:public_id>/": ("/transfers/{random}/", expect(404)),
    "^accounts/profile/": ("/accounts/profile/", signed_in(200)),
    "^accounts/profile/tokens/": ("/accounts/profile/tokens/", signed_in(405)),
    "^accounts/profile/public-name/": ("/accounts/profile/public-name/", signed_in(405)),
    "^accounts/profile/tokens/<int:token_id>/revoke/": ("/accounts/profile/tokens/{token}/revoke/", signed_in(405)),
}
# Third-party pages, covered by their prefix: the admin is for maintainers only; allauth's account pages
# are reachable by anyone (they ask to sign in where they must) and never fail.
PREFIX_RULES = {"^admin/": "admin", "^accounts/": "allauth", "^static/": "static", "^media/": "media"}


@pytest.fixture
def world(steward, other_org, governance_user, curator, speaker, outsider, maintainer, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    developer = member("developer@example.org", other_org, "speaker")
    developer.memberships.all().delete()
    public = import_corpus(
        data=corpus_bytes([entry(1, "development", domain="medical"), entry(2, "gold_standard")],
                                            id="public-set"),
        organization=steward,
        actor=None,
    ).version
    from django.core.files.uploadedfile import SimpleUploadedFile

    from corpus.models import ConsentUse
    from corpus.services import grant_consent

    consent = grant_consent(
        dataset=public.dataset,
        uses=list(ConsentUse),
        granted_by_name="Council",
        granted_on=date(2026, 1, 15),
        actor=governance_user,
        document=SimpleUploadedFile("resolution.txt", b"Resolution 2026-14.", "text/plain"),
    )
    publish(public.dataset)
    private = import_corpus(
        data=corpus_bytes([entry(11, "gold_standard"), entry(12, "development")], id="private-set"),
        organization=steward,
        actor=None,
    ).version
    dev_card = submit_run_card(
        body=body(make_card(public, list(Entry.objects.filter(version=public,
                                                                                    segment="development")))),
        actor=developer,
    )
    card = gold_card(steward, governance_user, count=12)
    pool = [speaker, member("speaker2@steward.example", steward, "speaker")]
    campaign = review_services.open_campaign(
        run_card=card,
        actor=governance_user,
        values=settings_for(pool, sample_size=4,
                                                                                      ratings_per_item=2),
    )
    staged = StagedImport.objects.create(user=curator, version=private, format="csv", content=b"id,source\n")
    add_interface_language(actor=governance_user, organization=steward, code="crk", name="nēhiyawēwin")
    ParticipationTerms.objects.create(organization=steward, version="2026-1", text="Terms.",
                                      transfer_clause="Transfer.", published_by=governance_user)
    token, _ = create_api_token(actor=developer, name="ci")
    practice_items = [save_practice_item(actor=governance_user, organization=steward, source=f"source {n}",
                                         candidate=f"candidate {n}", right={"gist"}, explanation="Why.")
                      for n in range(5)]
    from elicitation.services import BatchSettings, TranslationSubmission, create_batch, submit_translation
    from elicitation.sources import checked_rows, read_csv

    batch = create_batch(actor=curator, dataset=public.dataset, values=BatchSettings(
        title="Clinic", source_language="en", target_language="crk", guideline="As you would say it."),
        rows=checked_rows(read_csv(b"source,difficulty,register,domain\nhello,1,formal,conv\ndog,1,formal,conv\n"),
                          set()))
    translated = submit_translation(actor=pool[1], source=batch.sources.get(text="dog"), submission=(
        TranslationSubmission(client_id=uuid.uuid4(), text="atim", analysis="atim: NA")))[0]
    values = {
        "batch": batch.public_id, "batch_version": public.pk, "source": batch.sources.get(text="hello").public_id,
        "translation": translated.translation.public_id, "analysis": translated.pk,
        "private_version": private.pk, "gold_entry": Entry.objects.get(version=private, segment="gold_standard").pk,
        "private_entry": Entry.objects.get(version=private, segment="development").pk,
        "consent": consent.pk, "staged": staged.pk,
        "dev_card": dev_card.public_id, "gold_card": card.public_id, "campaign": campaign.public_id,
        "assignment": Assignment.objects.filter(campaign=campaign, speaker=speaker).first().public_id,
        "invitation": invite_member(
            organization=steward,
            email="new@person.example",
            role="speaker",
            actor=governance_user,
        ).token,
        "token": token.pk, "random": uuid.uuid4(), "today": date.today(), "practice_item": practice_items[0].pk,
        "practice_attempt": start_practice(actor=speaker, organization=steward).pk,
        "decision": propose_policy(actor=governance_user, organization=steward, kind="corpus.publication",
                                   threshold=1).public_id,
    }
    users = {"anonymous": None, "developer": developer, "speaker": speaker, "outsider": outsider,
             "curator": curator, "governance": governance_user, "maintainer": maintainer}
    return values, users


def client_as(user) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def test_every_route_has_an_entry_in_the_table():
    routes = set(walk())
    covered = {route for route in routes if route in TABLE or any(route.startswith(p) for p in PREFIX_RULES)}
    assert routes - covered == set(), "add these routes to TABLE with the statuses each role should get"
    assert set(TABLE) - routes == set(), "these TABLE rows name routes that no longer exist"


@pytest.mark.parametrize("role", ROLES)
def test_each_role_gets_the_expected_status_on_every_route(world, role):
    values, users = world
    client = client_as(users[role])
    wrong = []
    for _route, (template, expected) in TABLE.items():
        url = template.format(**values)
        status = client.get(url).status_code
        if status != expected[role]:
            wrong.append(f"{url}: got {status}, expected {expected[role]}")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("role", ROLES)
def test_third_party_pages_by_prefix(world, role):
    values, users = world
    client = client_as(users[role])
    for url in ("/admin/", "/admin/corpus/entry/", "/admin/review/campaign/", "/admin/leaderboard/runcard/"):
        status = client.get(url).status_code
        assert status == (200 if role == "maintainer" else 302), (url, status)
    for url in ("/accounts/login/", "/accounts/signup/", "/accounts/password/reset/", "/accounts/2fa/"):
        assert client.get(url).status_code in (200, 302), url
