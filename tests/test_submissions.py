"""Participation terms, method submissions (package checks, class audit, workflow, visibility) and
ownership transfer. Every hostile archive is built here with zipfile/tarfile."""

import io
import json
import os
import tarfile
import tempfile
import zipfile

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from accounts.services import get_or_create_user
from corpus.services import import_corpus
from leaderboard.services import submit_run_card
from organizations.models import AuditEvent
from review import services as review_services
from submissions import services as services
from submissions.models import (
    DEVELOPER_KEEPS,
    GOVERNANCE_GETS,
    MethodSubmission,
    OwnershipTransfer,
    ParticipationTerms,
    SubmissionEvent,
    SubmissionState,
    TermsAcceptance,
)
from submissions.packages import PackageLimits, inspect_package, parse_cost_report

from .cards import body, make_card
from .conftest import PASSWORD, SECRET_MARK, corpus_bytes, entry, member, shared_fixture
from .review_setup import OUTPUT_MARK, consent_to_everything, gold_card, gold_entries, open_campaign

MIB = 1024 * 1024
State = SubmissionState

OVERRIDE_REASON = "The panel found it usable, and the community approves it regardless."


# Packages, built in memory.

def manifest(dependency_class="S", dependencies=None, **fields) -> dict:
    return {"method_id": "fst-gated", "name": "FST-gated pipeline", "dependency_class": dependency_class,
            "dependencies": dependencies or [], **fields}


def method_card(**fields) -> dict:
    card = {"method_id": "fst-gated", "name": "FST-gated pipeline", "class": "pipeline",
            "description": "Coached LLM gated by a morphological analyser.", "author": "Ada Developer"}
    card.update(fields)
    return card


def package_files(manifest_value=None, card_value=None) -> dict[str, bytes]:
    return {
        "method.json": json.dumps(manifest_value if manifest_value is not None else manifest()).encode(),
        "method_card.json": json.dumps(card_value if card_value is not None else method_card()).encode(),
        "README.md": b"# FST-gated pipeline\n",
        "method/translate.py": b"def translate(source):\n    return source\n",
    }


def zip_bytes(files: dict[str, bytes], symlinks: dict[str, str] | None = None) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in files.items():
            archive.writestr(name, content)
        for name, target in (symlinks or {}).items():
            info = zipfile.ZipInfo(name)
            info.create_system = 3
            info.external_attr = 0o120777 << 16
            archive.writestr(info, target)
    return buffer.getvalue()


def tar_bytes(files: dict[str, bytes], special: list[tarfile.TarInfo] = ()) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, content in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(content)
            archive.addfile(info, io.BytesIO(content))
        for info in special:
            archive.addfile(info)
    return buffer.getvalue()


def tar_member(name: str, member_type: bytes, linkname: str = "") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = member_type
    info.linkname = linkname
    return info


def inspect(data: bytes, filename: str = "method.zip", **limits):
    return inspect_package(io.BytesIO(data), filename, PackageLimits(**limits) if limits else None)


def problems_by_path(report) -> dict[str, str]:
    return {problem.path: problem.message for problem in report.problems}


COST_REPORT = json.dumps({
    "cost_per_entry_usd": 0.004, "api_calls_per_entry": 2, "hardware": "1 CPU, no GPU",
    "items": [{"description": "Gateway inference for 150 entries", "cost_usd": 0.6, "api": "LLM gateway"}],
    "total_cost_usd": 0.6,
}).encode()


# Pure package checks.

@pytest.mark.parametrize("build, filename", [(zip_bytes, "method.zip"), (tar_bytes, "method.tar.gz")])
def test_a_well_formed_package_is_listed_file_by_file(build, filename):
    report = inspect(build(package_files()), filename)
    assert report.ok, report.problems
    assert report.archive_format == ("zip" if filename.endswith("zip") else "tar.gz")
    assert [(file.path, file.kind) for file in report.files] == [
        ("method.json", "config"), ("method_card.json", "config"), ("README.md", "document"),
        ("method/translate.py", "code"),
    ]
    assert report.files[3].size == len(b"def translate(source):\n    return source\n")
    assert report.manifest == manifest() and report.method_card == method_card()
    assert report.readme == "README.md"


def test_one_top_level_folder_is_the_package_root():
    report = inspect(tar_bytes({f"fst-gated-1.0/{name}": content for name, content in package_files().items()}),
                     "fst-gated-1.0.tgz")
    assert report.ok, report.problems
    assert report.root == "fst-gated-1.0/"
    assert report.manifest == manifest()


@pytest.mark.parametrize("build, filename", [(zip_bytes, "method.zip"), (tar_bytes, "method.tar.gz")])
@pytest.mark.parametrize("name, expected", [
    ("../evil.py", 'parent-folder component ".." in the path; it would point outside the package'),
    ("method/../../evil.py", 'parent-folder component ".." in the path; it would point outside the package'),
    ("/etc/x", "absolute path; members must be relative to the package"),
    ("..\\evil.py", "backslash in the path (a Windows separator or an escape trick); use / between folders"),
    ("C:/evil.py", "drive letter in the path; members must be relative to the package"),
])
def test_paths_escaping_the_package_are_refused_with_the_member_path(build, filename, name, expected):
    report = inspect(build({**package_files(), name: b"print('evil')\n"}), filename)
    assert problems_by_path(report) == {name: expected}


def test_a_tar_symlink_and_a_hardlink_are_refused():
    report = inspect(tar_bytes(package_files(), [
        tar_member("method/evil_link.py", tarfile.SYMTYPE, "/etc/passwd"),
        tar_member("method/hard.py", tarfile.LNKTYPE, "method/translate.py"),
    ]), "method.tar.gz")
    assert problems_by_path(report) == {
        "method/evil_link.py": "symbolic link (to '/etc/passwd'); links are refused, a link could point outside "
                               "the package",
        "method/hard.py": "hard link (to 'method/translate.py'); links are refused, put the file itself in the package",
    }
    assert "method/evil_link.py" not in [file.path for file in report.files]


def test_a_zip_entry_with_symlink_mode_bits_is_refused():
    report = inspect(zip_bytes(package_files(), symlinks={"escape.py": "../../etc/passwd"}))
    assert problems_by_path(report) == {
        "escape.py": "symbolic link (to '../../etc/passwd'); links are refused, a link could point outside the package",
    }


def test_device_and_fifo_members_are_refused():
    report = inspect(tar_bytes(package_files(), [tar_member("dev/null0", tarfile.CHRTYPE),
                                                 tar_member("pipe", tarfile.FIFOTYPE)]), "method.tar.gz")
    assert problems_by_path(report) == {
        "dev/null0": "device member; only regular files and folders are allowed",
        "pipe": "fifo member; only regular files and folders are allowed",
    }


def test_a_zip_bomb_over_the_uncompressed_limit_is_refused_before_it_is_read():
    bomb = zip_bytes({"README.md": b"# x\n", "data/zeros.txt": b"0" * (2 * MIB), **package_files()})
    report = inspect(bomb, max_uncompressed_bytes=MIB)
    assert problems_by_path(report) == {
        "data/zeros.txt": "the members up to this one expand to more than 1 MiB, the uncompressed limit",
    }
    assert report.manifest is None, "the walk stops at the bomb"


def test_a_highly_compressible_member_is_refused_by_its_ratio():
    report = inspect(zip_bytes({**package_files(), "data/zeros.txt": b"0" * (4 * MIB)}))
    (path, message), = problems_by_path(report).items()
    assert path == "data/zeros.txt"
    assert message.endswith("over the 100× limit: a compression bomb")


def test_a_gzip_bomb_tar_is_refused_by_its_ratio():
    report = inspect(tar_bytes({**package_files(), "data/zeros.txt": b"0" * (4 * MIB)}), "method.tar.gz")
    (path, message), = problems_by_path(report).items()
    assert path == "method.tar.gz"
    assert message.endswith("over the 100× limit: a compression bomb")


def test_duplicate_names_are_refused_even_when_they_differ_only_in_case():
    buffer = io.BytesIO()
    with pytest.warns(UserWarning, match="Duplicate name"), zipfile.ZipFile(buffer, "w") as archive:
        for name, content in package_files().items():
            archive.writestr(name, content)
        archive.writestr("README.md", b"second")
        archive.writestr("Method/Translate.py", b"x = 1\n")
    problems = inspect(buffer.getvalue()).problems
    assert [(problem.path, problem.message) for problem in problems] == [
        ("README.md", "duplicate: the same path as 'README.md' earlier in the archive"),
        ("Method/Translate.py", "duplicate: a path that differs only in case or Unicode form from "
                                "'method/translate.py' earlier in the archive"),
    ]


@pytest.mark.parametrize("name", ["tools/helper.exe", "lib/libfst.so", "model.bin", "analyser.hfstol"])
def test_file_types_outside_the_allow_list_are_refused(name):
    report = inspect(zip_bytes({**package_files(), name: b"text"}))
    (path, message), = problems_by_path(report).items()
    assert path == name
    assert message.startswith("file type not allowed")


def test_a_binary_disguised_as_source_code_is_refused():
    report = inspect(zip_bytes({**package_files(), "method/fast.py": b"\x7fELF\x02\x01\x01\x00\x00"}))
    assert problems_by_path(report) == {"method/fast.py": "contains NUL bytes: a binary file, not text"}
    report = inspect(zip_bytes({**package_files(), "method/latin1.py": "s = 'câ'\n".encode("latin-1")}))
    assert problems_by_path(report) == {"method/latin1.py": "not UTF-8 text (invalid byte at offset 6)"}


def test_missing_required_files_are_each_named():
    files = package_files()
    del files["method.json"], files["README.md"]
    report = inspect(zip_bytes(files))
    assert problems_by_path(report) == {
        "method.json": "required file is missing: the dependency manifest, at the top of the package",
        "README.md": "required file is missing: a README (README, README.md, README.txt or README.rst) next to "
                     "method.json",
    }


def test_malformed_json_is_reported_with_line_and_column():
    files = package_files()
    files["method.json"] = b'{\n  "dependency_class": "S",\n  "dependencies": [,]\n}\n'
    report = inspect(zip_bytes(files))
    # Line 3 is `  "dependencies": [,]`: the comma is its 20th character.
    assert problems_by_path(report) == {"method.json": "malformed JSON at line 3, column 20: Expecting value"}


def test_json_nested_deeper_than_the_parser_recurses_is_a_problem_not_a_crash():
    files = package_files()
    files["method_card.json"] = b"[" * 200_000
    report = inspect(zip_bytes(files))
    assert problems_by_path(report) == {"method_card.json": "malformed JSON: nested too deeply"}
    _, problems = parse_cost_report(b'{"items": ' * 100_000)
    assert [str(problem) for problem in problems] == ["cost_report.json: malformed JSON: nested too deeply"]


def test_archive_level_problems_name_the_upload():
    assert problems_by_path(inspect(zip_bytes(package_files()), max_bytes=100)) == {
        "method.zip": f"the package is {len(zip_bytes(package_files()))} bytes, over the 100 bytes limit",
    }
    assert problems_by_path(inspect(tar_bytes(package_files()), "method.zip")) == {
        "method.zip": "named .zip but its content is a tar.gz archive",
    }
    assert problems_by_path(inspect(zip_bytes(package_files()), "method.rar")) == {
        "method.rar": "expected a .zip or .tar.gz package",
    }
    assert problems_by_path(inspect(zip_bytes(package_files()), max_members=3)) == {
        "method.zip": "4 members, more than the 3 allowed",
    }
    assert problems_by_path(inspect(b"PK\x03\x04 not really a zip")) == {
        "method.zip": "not a readable zip archive (File is not a zip file)",
    }


def test_the_cost_report_is_checked_with_field_paths():
    value, problems = parse_cost_report(COST_REPORT)
    assert problems == [] and value["cost_per_entry_usd"] == 0.004
    _, problems = parse_cost_report(json.dumps({
        "cost_per_entry_usd": -1, "api_calls_per_entry": "two",
        "items": [{"description": "inference", "cost_usd": True}, {"cost_usd": 0.5}, "gpu"],
    }).encode())
    assert [(problem.path, problem.message) for problem in problems] == [
        ("cost_report.cost_per_entry_usd", "expected a number ≥ 0, found -1"),
        ("cost_report.api_calls_per_entry", 'expected a number ≥ 0, found "two"'),
        ("cost_report.items[0].cost_usd", "expected a number ≥ 0, found true"),
        ("cost_report.items[1].description", "required field is missing; expected a non-empty string"),
        ("cost_report.items[2]", "expected an object (one cost line)"),
    ]
    _, problems = parse_cost_report(b'{"cost_per_entry_usd": NaN}', "costs.json")
    assert [str(problem) for problem in problems] == ["costs.json: NaN is not a JSON number; write a number or null"]
    _, problems = parse_cost_report(json.dumps({"cost_per_entry_usd": 0.01, "total_cost_usd": 2,
                                                "items": [{"description": "a", "cost_usd": 1.25}]}).encode())
    assert [str(problem) for problem in problems] == ["cost_report.total_cost_usd: is 2 but the items add up to 1.2500"]


# Submitting (database).

@pytest.fixture
def media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    return settings.MEDIA_ROOT


@shared_fixture
def terms(steward, governance_user):
    return services.publish_terms(
        organization=steward,
        actor=governance_user,
        version="1",
        text="Submit in good faith.",
        transfer_clause="Ownership transfers to Steward Nation as SPEC §5 says.",
    )


@shared_fixture
def developer(db):
    user, _ = get_or_create_user("dev@methods.example", PASSWORD)
    return user


@pytest.fixture
def acceptance(terms, developer):
    return services.accept_terms(terms=terms, actor=developer)


def submit(steward, developer, acceptance, data: bytes, filename="method.zip", cost=COST_REPORT):
    return services.submit_method(
        organization=steward,
        actor=developer,
        terms_acceptance=acceptance,
        package=io.BytesIO(data),
        package_name=filename,
        cost_report=cost,
    )


def snapshot(root) -> set[str]:
    return {os.path.relpath(os.path.join(folder, name), root)
            for folder, folders, files in os.walk(root) for name in folders + files}


@pytest.mark.django_db
@pytest.mark.parametrize("evil", [
    {"build": zip_bytes, "filename": "evil.zip", "extra": {"../evil.py": b"x", "/tmp/evil_abs.py": b"x"}},
    {"build": tar_bytes, "filename": "evil.tar.gz", "extra": {"../../evil.py": b"x"}},
])
def test_a_refused_package_stores_nothing_and_writes_nothing_outside_a_temporary_folder(
        steward, developer, acceptance, media, tmp_path, monkeypatch, evil):
    scratch = tmp_path / "tmp"
    workdir = tmp_path / "work" / "deep"
    scratch.mkdir()
    workdir.mkdir(parents=True)
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    monkeypatch.chdir(workdir)
    special = [tar_member("evil_link.py", tarfile.SYMTYPE, "/etc/passwd")] if evil["build"] is tar_bytes else []
    data = (evil["build"](package_files() | evil["extra"], special) if special
            else zip_bytes(package_files() | evil["extra"], symlinks={"evil_link.py": "/etc/passwd"}))
    before = snapshot(tmp_path.parent)
    events_before = AuditEvent.objects.count()

    outcome = submit(steward, developer, acceptance, data, evil["filename"])

    assert outcome.submission is None
    assert {problem.path for problem in outcome.problems} == {*evil["extra"], "evil_link.py"}
    assert MethodSubmission.objects.count() == 0 and SubmissionEvent.objects.count() == 0
    assert AuditEvent.objects.count() == events_before
    assert snapshot(tmp_path.parent) == before, "nothing was written anywhere near the temporary folders"
    assert not any("evil" in name for name in snapshot(tmp_path.parent))
    assert not os.path.exists("/tmp/evil_abs.py") and not os.path.exists(tmp_path / "evil.py")


@pytest.mark.django_db
def test_a_good_package_is_stored_under_media_submissions_and_audited(steward, developer, acceptance, media):
    data = zip_bytes(package_files())
    outcome = submit(steward, developer, acceptance, data)
    submission = outcome.submission
    assert outcome.problems == []
    assert submission.state == State.MANIFEST_AUDITED
    assert submission.derived_class == submission.declared_class == "S"
    assert submission.open_leaderboard_only is False
    assert submission.package.name.startswith(f"submissions/{steward.pk}/") and submission.package.name.endswith(".zip")
    assert (media / submission.package.name).read_bytes() == data
    assert submission.package_size == len(data)
    assert submission.files[3] == {"path": "method/translate.py", "size": 41, "kind": "code"}
    assert submission.cost_report["cost_per_entry_usd"] == 0.004
    assert list(submission.events.values_list("from_state", "to_state")) == [
        ("", "submitted"), ("submitted", "manifest_audited")]
    changes = AuditEvent.objects.filter(action="submission.state_changed").order_by("id")
    assert [(event.details["from"], event.details["to"]) for event in changes] == [
        ("", "submitted"), ("submitted", "manifest_audited")]


# The class audit, with the leaderboard's derivation.

GATEWAY = {"id": "gpt-gateway", "kind": "model", "license": "proprietary", "access": "gateway",
           "source": "gateway:gpt", "substitutable": True, "redistributable": False, "transferable": False}
EXTERNAL = {"id": "translate-api", "kind": "service", "license": "proprietary", "access": "external-api",
            "source": "https://api.example.com/translate", "substitutable": False, "redistributable": False,
            "transferable": False}
MIRRORED = {"id": "fst", "kind": "software", "license": "AGPL-3.0-or-later", "access": "mirrored",
            "source": "https://github.com/giellalt/lang-crk", "pin": "v1.2.0", "redistributable": True,
            "transferable": True}
BUNDLED_NO_RIGHTS = {"id": "dictionary", "kind": "data", "license": "none", "access": "bundled",
                     "source": "https://example.com/dictionary", "redistributable": False, "transferable": False}


@pytest.mark.django_db
@pytest.mark.parametrize("dependency_class, dependencies", [
    ("S", []), ("O", [MIRRORED]), ("A1", [MIRRORED, GATEWAY]),
])
def test_classes_s_o_a1_are_accepted(steward, developer, acceptance, media, dependency_class, dependencies):
    outcome = submit(steward, developer, acceptance, zip_bytes(package_files(manifest(dependency_class, dependencies))))
    assert outcome.problems == []
    assert outcome.submission.derived_class == dependency_class
    assert outcome.submission.open_leaderboard_only is False


@pytest.mark.django_db
def test_class_a2_is_accepted_for_the_open_leaderboard_only_with_its_flag(client, steward, developer, acceptance,
                                                                          media):
    outcome = submit(steward, developer, acceptance, zip_bytes(package_files(manifest("A2", [GATEWAY, EXTERNAL]))))
    submission = outcome.submission
    assert (submission.derived_class, submission.deciding_dependency, submission.open_leaderboard_only) == (
        "A2", "translate-api", True)
    client.force_login(developer)
    page = client.get(f"/submissions/{submission.public_id}/").content.decode()
    assert "external dependency — open leaderboard only" in page
    assert "Non-substitutable external API: accepted for the open leaderboard only" in page


@pytest.mark.django_db
def test_class_x_is_refused_outright(steward, developer, acceptance, media):
    outcome = submit(steward, developer, acceptance, zip_bytes(package_files(manifest("X", [BUNDLED_NO_RIGHTS]))))
    assert outcome.submission is None and outcome.derived_class == "X"
    assert [str(problem) for problem in outcome.problems] == [
        'method.dependencies: dependency "dictionary" makes the method class X (content bundled without the right '
        "to redistribute and transfer it); class X methods cannot be evaluated or transferred and are refused",
    ]
    assert MethodSubmission.objects.count() == 0


@pytest.mark.django_db
def test_a_declared_class_that_differs_from_the_derived_one_is_refused_naming_the_dependency(
        steward, developer, acceptance, media):
    outcome = submit(steward, developer, acceptance, zip_bytes(package_files(manifest("S", [GATEWAY]),
                                                                             method_card(dependency_class="O"))))
    assert outcome.submission is None
    assert [str(problem) for problem in outcome.problems] == [
        'method.dependency_class: declared class "S" but dependency "gpt-gateway" (gateway, substitutable) makes it A1',
        'method_card.dependency_class: method card declares dependency class "O" but the method.json dependencies '
        "make it A1",
    ]


@pytest.mark.django_db
def test_terms_must_be_accepted_and_current(steward, governance_user, developer, terms, media):
    outcome = submit(steward, developer, None, zip_bytes(package_files()))
    assert [str(problem) for problem in outcome.problems] == [
        "terms: accept Steward Nation's participation terms (version 1) before submitting"]
    old = services.accept_terms(terms=terms, actor=developer)
    services.publish_terms(
        organization=steward,
        actor=governance_user,
        version="2",
        text="New terms.",
        transfer_clause="Transfer clause, version 2.",
    )
    outcome = submit(steward, developer, old, zip_bytes(package_files()))
    assert [str(problem) for problem in outcome.problems] == [
        "terms: you accepted version 1, which version 2 replaced; accept the current version"]
    assert MethodSubmission.objects.count() == 0


@pytest.mark.django_db
def test_published_terms_are_never_edited_and_need_the_transfer_clause(steward, governance_user, curator, terms):
    with pytest.raises(services.SubmissionError, match="already published") as error:
        services.publish_terms(
            organization=steward,
            actor=governance_user,
            version="1",
            text="Changed.",
            transfer_clause="Clause.",
        )
    assert error.value.field == "version"
    with pytest.raises(services.SubmissionError) as error:
        services.publish_terms(
            organization=steward,
            actor=governance_user,
            version="2",
            text="Terms.",
            transfer_clause="  ",
        )
    assert error.value.field == "transfer_clause"
    with pytest.raises(services.NotAllowed):
        services.publish_terms(
            organization=steward,
            actor=curator,
            version="2",
            text="Terms.",
            transfer_clause="Clause.",
        )
    terms.text = "Edited in place"
    with pytest.raises(PermissionError):
        terms.save()
    with pytest.raises(PermissionError):
        ParticipationTerms.objects.filter(pk=terms.pk).update(text="Edited")
    assert AuditEvent.objects.filter(action="terms.published").count() == 1


# The workflow.

@pytest.fixture
def submission(steward, developer, acceptance, media):
    return submit(steward, developer, acceptance, zip_bytes(package_files())).submission


def advance(submission, actor, to_state, **details):
    return services.advance_submission(submission=submission, actor=actor, to_state=to_state, **details)


@pytest.mark.django_db
def test_every_allowed_transition_up_to_the_transfer(submission, governance_user, card, pool, developer):
    advance(submission, governance_user, State.AWAITING_SANDBOX)
    advance(submission, governance_user, State.EVALUATED, run_card=card)
    campaign = open_campaign(card, governance_user, pool)
    advance(submission, governance_user, State.IN_REVIEW)
    review_services.record_decision(
        campaign=campaign,
        actor=governance_user,
        outcome="approve",
        rationale="The panel found it usable, on fewer items than the policy asks.",
        against_recommendation=True,
    )
    advance(submission, governance_user, State.APPROVED)
    transfer = services.record_ownership_transfer(
        submission=submission,
        actor=governance_user,
        notes="Signed at the council meeting.",
    )

    submission.refresh_from_db()
    assert submission.state == State.OWNERSHIP_TRANSFERRED and submission.run_card == card
    assert list(submission.events.values_list("to_state", flat=True)) == [
        "submitted", "manifest_audited", "awaiting_sandbox", "evaluated", "in_review", "approved",
        "ownership_transferred"]
    assert (transfer.terms, transfer.run_card, transfer.method_id) == (
        submission.terms_acceptance.terms, card, "fst-gated")
    assert transfer.developer_keeps == DEVELOPER_KEEPS and transfer.governance_gets == GOVERNANCE_GETS
    changes = AuditEvent.objects.filter(action="submission.state_changed", object_id=str(submission.pk)).order_by("id")
    assert [event.details["to"] for event in changes][-5:] == [
        "awaiting_sandbox", "evaluated", "in_review", "approved", "ownership_transferred"]
    assert changes.filter(details__to="evaluated").get().details["run_id"] == str(card.run_id)
    logged = AuditEvent.objects.get(action="ownership.transferred")
    assert (logged.actor, logged.organization, logged.details["terms_version"]) == (
        governance_user, submission.organization, "1")
    with pytest.raises(PermissionError):
        transfer.delete()


@pytest.mark.django_db
def test_skipping_a_state_is_refused_naming_the_current_state_and_what_is_allowed(submission, governance_user, card):
    with pytest.raises(services.TransitionRefused) as error:
        advance(submission, governance_user, State.EVALUATED, run_card=card)
    assert str(error.value) == ('A submission in state "Manifest audited" cannot move to "Evaluated". '
                                "Allowed next: Awaiting sandbox run, Rejected.")
    with pytest.raises(services.TransitionRefused, match='cannot move to "Approved"'):
        advance(submission, governance_user, State.APPROVED)
    with pytest.raises(services.TransitionRefused, match="Record the ownership transfer instead"):
        advance(submission, governance_user, State.OWNERSHIP_TRANSFERRED)
    submission.refresh_from_db()
    assert submission.state == State.MANIFEST_AUDITED


@pytest.mark.django_db
def test_only_the_organizations_governance_staff_move_a_submission(submission, developer, curator, outsider,
                                                                   other_org):
    other_governance = member("gov@other.example", other_org, "governance")
    for actor in (developer, curator, outsider, other_governance):
        with pytest.raises(services.NotAllowed):
            advance(submission, actor, State.AWAITING_SANDBOX)
    submission.refresh_from_db()
    assert submission.state == State.MANIFEST_AUDITED and submission.events.count() == 2


def run_card_on(organization, governance, dataset_id: str, entries: list[dict]):
    """A verified run card on a corpus of its own (the shared fixtures all use one dataset id)."""
    version = import_corpus(data=corpus_bytes(entries, id=dataset_id), organization=organization, actor=None).version
    consent_to_everything(version.dataset, governance)
    return submit_run_card(body=body(make_card(version, list(version.entries.order_by("position")))), actor=governance)


@pytest.mark.django_db
def test_the_run_card_attached_must_be_a_verified_gold_card_of_the_organization(
        submission, steward, governance_user, card, other_org):
    advance(submission, governance_user, State.AWAITING_SANDBOX)
    with pytest.raises(services.SubmissionError, match="Choose the gold_standard run card") as error:
        advance(submission, governance_user, State.EVALUATED)
    assert error.value.field == "run_card"
    development = run_card_on(steward, governance_user, "dev-en-crk", [entry(n) for n in range(1, 6)])
    assert development.status == "ready"
    with pytest.raises(services.SubmissionError, match="scores the development segment"):
        advance(submission, governance_user, State.EVALUATED, run_card=development)
    elsewhere_governance = member("gov@other.example", other_org, "governance")
    elsewhere = run_card_on(other_org, elsewhere_governance, "other-gold", gold_entries(10))
    assert elsewhere.segment == "gold_standard"
    with pytest.raises(services.SubmissionError, match="a dataset Steward Nation does not steward"):
        advance(submission, governance_user, State.EVALUATED, run_card=elsewhere)
    advance(submission, governance_user, State.EVALUATED, run_card=card)
    submission.refresh_from_db()
    assert submission.run_card == card


@pytest.mark.django_db
def test_a_run_card_is_attached_to_one_submission_only(submission, steward, developer, acceptance, governance_user,
                                                       card):
    second = submit(steward, developer, acceptance, zip_bytes(package_files())).submission
    for each in (submission, second):
        advance(each, governance_user, State.AWAITING_SANDBOX)
    advance(submission, governance_user, State.EVALUATED, run_card=card)
    with pytest.raises(services.SubmissionError, match="already attached to another submission"):
        advance(second, governance_user, State.EVALUATED, run_card=card)


@pytest.mark.django_db
def test_review_needs_a_campaign_and_approval_mirrors_the_decision_in_force(submission, governance_user, card, pool):
    advance(submission, governance_user, State.AWAITING_SANDBOX)
    advance(submission, governance_user, State.EVALUATED, run_card=card)
    with pytest.raises(services.TransitionRefused, match="Open a review campaign on its run card first"):
        advance(submission, governance_user, State.IN_REVIEW)
    campaign = open_campaign(card, governance_user, pool)
    advance(submission, governance_user, State.IN_REVIEW)
    with pytest.raises(services.TransitionRefused) as error:
        advance(submission, governance_user, State.APPROVED)
    assert str(error.value) == ('A submission in state "In community review" cannot move to "Approved". It mirrors '
                                "the community review, and the review campaign has no decision yet. "
                                "Allowed next: Approved, Rejected.")
    review_services.record_decision(
        campaign=campaign,
        actor=governance_user,
        outcome="reject",
        rationale="Too many hallucinations.",
    )
    with pytest.raises(services.TransitionRefused, match="the decision in force is “Rejected”"):
        advance(submission, governance_user, State.APPROVED)
    advance(submission, governance_user, State.REJECTED)
    submission.refresh_from_db()
    assert submission.state == State.REJECTED
    with pytest.raises(services.TransitionRefused, match="Allowed next: none \\(final state\\)"):
        advance(submission, governance_user, State.AWAITING_SANDBOX)


@pytest.mark.django_db
def test_rejection_after_review_needs_a_rejecting_decision(submission, governance_user, card, pool):
    advance(submission, governance_user, State.AWAITING_SANDBOX)
    advance(submission, governance_user, State.EVALUATED, run_card=card)
    campaign = open_campaign(card, governance_user, pool)
    advance(submission, governance_user, State.IN_REVIEW)
    review_services.record_decision(campaign=campaign, actor=governance_user, outcome="approve",
                                    rationale=OVERRIDE_REASON, against_recommendation=True)
    with pytest.raises(services.TransitionRefused, match="the decision in force is “Approved”"):
        advance(submission, governance_user, State.REJECTED, note="Changed our mind")
    advance(submission, governance_user, State.APPROVED)
    review_services.record_decision(
        campaign=campaign,
        actor=governance_user,
        outcome="revoke",
        rationale="A speaker found a problem.",
    )
    with pytest.raises(services.TransitionRefused, match="not eligible"):
        services.record_ownership_transfer(submission=submission, actor=governance_user)
    advance(submission, governance_user, State.REJECTED)
    assert OwnershipTransfer.objects.count() == 0


@pytest.mark.django_db
def test_rejection_before_review_needs_a_written_reason(submission, governance_user):
    with pytest.raises(services.SubmissionError, match="Write why") as error:
        advance(submission, governance_user, State.REJECTED)
    assert error.value.field == "note"
    advance(submission, governance_user, State.REJECTED, note="The package does not run offline.")
    assert submission.events.last().note == "The package does not run offline."


@pytest.mark.django_db
def test_transfer_is_refused_when_the_method_is_not_eligible(submission, steward, governance_user, pool):
    below = gold_card(steward, governance_user, composite=0.6)
    advance(submission, governance_user, State.AWAITING_SANDBOX)
    with pytest.raises(services.TransitionRefused, match="Only an approved submission is transferred"):
        services.record_ownership_transfer(submission=submission, actor=governance_user)
    advance(submission, governance_user, State.EVALUATED, run_card=below)
    campaign = open_campaign(below, governance_user, pool, below_threshold_reason="Community asked to see it.")
    advance(submission, governance_user, State.IN_REVIEW)
    review_services.record_decision(
        campaign=campaign,
        actor=governance_user,
        outcome="approve",
        rationale="Usable despite the score, on fewer items than the policy asks.",
        against_recommendation=True,
    )
    advance(submission, governance_user, State.APPROVED)
    with pytest.raises(services.TransitionRefused) as error:
        services.record_ownership_transfer(submission=submission, actor=governance_user)
    assert "composite ≥ 0.70 for a legacy-composite card" in str(error.value)
    submission.refresh_from_db()
    assert submission.state == State.APPROVED and OwnershipTransfer.objects.count() == 0
    assert not AuditEvent.objects.filter(action="ownership.transferred").exists()


# Who sees what.

@pytest.fixture
def evaluated(submission, governance_user, card):
    advance(submission, governance_user, State.AWAITING_SANDBOX)
    advance(submission, governance_user, State.EVALUATED, run_card=card)
    submission.refresh_from_db()
    return submission


@pytest.mark.django_db
def test_the_submitter_sees_scores_but_never_gold_text(client, evaluated, developer, card):
    client.force_login(developer)
    response = client.get(f"/submissions/{evaluated.public_id}/")
    page = response.content.decode()
    assert response.status_code == 200
    assert f"{card.composite:.4f}" in page and "Evaluated" in page
    assert SECRET_MARK not in page and OUTPUT_MARK not in page
    assert "Move the submission on" not in page
    assert client.post(f"/submissions/{evaluated.public_id}/", {"to_state": "in_review"}).status_code == 404
    listing = client.get("/submissions/").content.decode()
    assert "FST-gated pipeline" in listing and SECRET_MARK not in listing


@pytest.mark.django_db
def test_outsiders_get_404(client, evaluated, outsider, curator, speaker):
    for user in (outsider, curator, speaker):
        client.force_login(user)
        assert client.get(f"/submissions/{evaluated.public_id}/").status_code == 404
        assert client.get(f"/submissions/{evaluated.public_id}/transfer/").status_code == 404
        assert client.get("/orgs/steward/submissions/").status_code == 404
        assert "FST-gated" not in client.get("/submissions/").content.decode()
    client.logout()
    assert client.get(f"/submissions/{evaluated.public_id}/").status_code == 302


@pytest.mark.django_db
def test_staff_move_a_submission_from_its_page_and_see_refusals_next_to_the_field(client, submission,
                                                                                governance_user, card):
    client.force_login(governance_user)
    url = f"/submissions/{submission.public_id}/"
    assert client.post(url, {"to_state": "awaiting_sandbox"}).status_code == 302
    response = client.post(url, {"to_state": "evaluated"})
    assert response.status_code == 400
    assert "Choose the gold_standard run card the sandbox produced." in response.context["form"].errors["run_card"]
    page = client.get(url).content.decode()
    assert f'value="{card.pk}"' in page, "the verified gold card is offered"
    assert client.post(url, {"to_state": "evaluated", "run_card": card.pk}).status_code == 302
    submission.refresh_from_db()
    assert submission.state == State.EVALUATED


@pytest.mark.django_db
def test_the_staff_list_query_count_is_bounded(client, steward, developer, acceptance, governance_user, media,
                                               django_assert_max_num_queries):
    for _ in range(3):
        submit(steward, developer, acceptance, zip_bytes(package_files()))
    client.force_login(governance_user)
    with django_assert_max_num_queries(9):
        small = client.get("/orgs/steward/submissions/")
    for _ in range(12):
        submit(steward, developer, acceptance, zip_bytes(package_files()))
    with django_assert_max_num_queries(9):
        large = client.get("/orgs/steward/submissions/")
    assert small.content.decode().count("dev@methods.example") == 3
    assert large.content.decode().count("dev@methods.example") == 15


# Pages: terms, submitting, the transfer and the method page.

@pytest.mark.django_db
def test_terms_page_lists_versions_latest_first_and_records_acceptance(client, steward, governance_user, developer):
    client.force_login(governance_user)
    response = client.post("/orgs/steward/terms/", {"version": "1", "text": "First terms.",
                                                    "transfer_clause": "Clause one."})
    assert response.status_code == 302
    response = client.post("/orgs/steward/terms/", {"version": "1", "text": "Again.", "transfer_clause": "Clause."})
    assert response.status_code == 400 and "already published" in response.context["form"].errors["version"][0]
    client.post("/orgs/steward/terms/", {"version": "2", "text": "Second terms.", "transfer_clause": "Clause two."})
    client.force_login(developer)
    page = client.get("/orgs/steward/terms/").content.decode()
    assert page.index("Version 2") < page.index("Version 1")
    assert "Publish a new version" not in page
    assert client.post("/orgs/steward/terms/", {"version": "3", "text": "x", "transfer_clause": "y"}).status_code == 404
    assert client.post("/orgs/steward/terms/2/accept/").status_code == 302
    accepted = TermsAcceptance.objects.get(user=developer)
    assert accepted.terms.version == "2"
    assert AuditEvent.objects.filter(action="terms.accepted", actor=developer).count() == 1


@pytest.mark.django_db
def test_submitting_through_the_page_accepts_the_terms_inline(client, steward, terms, developer, media):
    client.force_login(developer)
    form = {"package": SimpleUploadedFile("fst-gated.zip", zip_bytes(package_files())),
            "cost_report": SimpleUploadedFile("cost_report.json", COST_REPORT)}
    response = client.post("/orgs/steward/submit/", form)
    assert response.status_code == 400 and "accept_terms" in response.context["form"].errors
    form = {"package": SimpleUploadedFile("fst-gated.zip", zip_bytes({**package_files(), "../evil.py": b"x"})),
            "cost_report": SimpleUploadedFile("cost_report.json", COST_REPORT), "accept_terms": "on",
            "used_development": "no"}
    response = client.post("/orgs/steward/submit/", form)
    assert response.status_code == 400
    assert "../evil.py" in response.content.decode()
    assert not TermsAcceptance.objects.exists(), "a refused submission stores nothing, not even the acceptance"
    form = {"package": SimpleUploadedFile("fst-gated.zip", zip_bytes(package_files())),
            "cost_report": SimpleUploadedFile("cost_report.json", COST_REPORT), "accept_terms": "on",
            "used_development": "yes", "development_uses": ["few-shot", "retrieval"], "development_entries": "1, 2 2"}
    response = client.post("/orgs/steward/submit/", form)
    assert response.status_code == 400 and "duplicate" in str(response.context["form"].errors["development_entries"])
    form = {"package": SimpleUploadedFile("fst-gated.zip", zip_bytes(package_files())),
            "cost_report": SimpleUploadedFile("cost_report.json", COST_REPORT), "accept_terms": "on",
            "used_development": "yes", "development_uses": ["few-shot", "retrieval"], "development_entries": "1, 2 7"}
    response = client.post("/orgs/steward/submit/", form)
    submission = MethodSubmission.objects.get()
    assert response.status_code == 302 and response.url == f"/submissions/{submission.public_id}/"
    assert submission.terms_acceptance.terms == terms and submission.terms_acceptance.user == developer
    assert submission.development_data == {"used": True, "uses": ["few-shot", "retrieval"],
                                           "entries": ["1", "2", "7"], "notes": ""}
    page = client.get(response.url).content.decode()
    assert "yes, for few-shot, retrieval" in page and "1, 2, 7" in page


@pytest.mark.django_db
def test_a_developer_reading_french_reads_the_packages_problems_in_french(client, steward, terms, developer, media):
    developer.interface_language = "fr-ca"
    developer.save(update_fields=["interface_language"])
    client.force_login(developer)
    form = {"package": SimpleUploadedFile("fst-gated.zip", zip_bytes({**package_files(), "../evil.py": b"x"})),
            "cost_report": SimpleUploadedFile("cost_report.json", b'{"cost_per_entry_usd": NaN}'),
            "accept_terms": "on", "used_development": "no"}
    response = client.post("/orgs/steward/submit/", form)
    assert response.status_code == 400
    assert [str(problem) for problem in response.context["problems"]] == [
        "../evil.py: composante de dossier parent «\u00a0..\u00a0» dans le chemin; elle pointerait hors du "
        "paquet",
        "cost_report.json: NaN n’est pas un nombre JSON; écrivez un nombre ou null",
    ]
    assert "composante de dossier parent «\u00a0..\u00a0» dans le chemin" in response.content.decode()


@pytest.mark.django_db
def test_a_developer_reading_french_reads_the_method_cards_problems_in_french(client, steward, terms, developer,
                                                                              media):
    developer.interface_language = "fr-ca"
    developer.save(update_fields=["interface_language"])
    client.force_login(developer)
    files = package_files(manifest("S", [GATEWAY]), method_card(**{"class": "Pipeline", "dependency_class": "S"}))
    form = {"package": SimpleUploadedFile("fst-gated.zip", zip_bytes(files)),
            "cost_report": SimpleUploadedFile("cost_report.json", COST_REPORT),
            "accept_terms": "on", "used_development": "no"}
    response = client.post("/orgs/steward/submit/", form)
    assert response.status_code == 400
    assert [str(problem) for problem in response.context["problems"]] == [
        "method.dependency_class: classe déclarée «\u00a0S\u00a0», mais la dépendance \"gpt-gateway\" (gateway, "
        "substituable) la rend A1",
        "method_card.class: classe de méthode inconnue \"Pipeline\" (vouliez-vous dire «\u00a0pipeline\u00a0»?)"
        "; valeurs possibles\u00a0: raw-llm, coached-llm, pipeline, custom-plugin, api, human",
        "method_card.dependency_class: la fiche de méthode déclare la classe de dépendance «\u00a0S\u00a0», mais les "
        "dépendances de method.json la rendent A1",
    ]
    page = response.content.decode()
    assert "la fiche de méthode déclare la classe de dépendance «\u00a0S\u00a0»" in page
    assert "classe de méthode inconnue &quot;Pipeline&quot;" in page  # the submitted value, escaped


@pytest.mark.django_db
def test_the_development_entries_question_is_answered_in_full(client, steward, terms, developer, media):
    client.force_login(developer)
    base = {"cost_report": SimpleUploadedFile("cost_report.json", COST_REPORT), "accept_terms": "on"}
    for answer, field in (({}, "used_development"), ({"used_development": "yes"}, "development_uses"),
                          ({"used_development": "yes", "development_uses": ["few-shot"]}, "development_entries"),
                          ({"used_development": "no", "development_entries": "all"}, "used_development"),
                          ({"used_development": "yes", "development_uses": ["memorised"],
                            "development_entries": "all"}, "development_uses")):
        form = {**base, **answer, "package": SimpleUploadedFile("fst-gated.zip", zip_bytes(package_files()))}
        base["cost_report"] = SimpleUploadedFile("cost_report.json", COST_REPORT)
        response = client.post("/orgs/steward/submit/", form)
        assert response.status_code == 400 and field in response.context["form"].errors, answer
    assert not MethodSubmission.objects.exists()


@pytest.mark.django_db
def test_the_transfer_record_is_shown_on_the_method_page(client, evaluated, governance_user, card, pool, developer):
    campaign = open_campaign(card, governance_user, pool)
    advance(evaluated, governance_user, State.IN_REVIEW)
    review_services.record_decision(campaign=campaign, actor=governance_user, outcome="approve",
                                    rationale=OVERRIDE_REASON, against_recommendation=True)
    advance(evaluated, governance_user, State.APPROVED)
    client.force_login(governance_user)
    url = f"/submissions/{evaluated.public_id}/transfer/"
    assert client.post(url, {"developer_keeps": "Attribution", "governance_gets": "",
                             "confirm": "on"}).status_code == 400
    response = client.post(url, {"developer_keeps": "Attribution\nPublication", "governance_gets": "The code",
                                 "notes": "Council resolution 2026-20", "confirm": "on"})
    transfer = OwnershipTransfer.objects.get()
    assert response.status_code == 302 and response.url == f"/transfers/{transfer.public_id}/"
    assert transfer.developer_keeps == ["Attribution", "Publication"] and transfer.governance_gets == ["The code"]
    client.logout()
    page = client.get("/methods/fst-gated/").content.decode()
    assert "Transferred to Steward Nation" in page and "Council resolution 2026-20" in page
    assert "participation terms</a> version 1" in page
    assert "Ada Developer" in page
    assert SECRET_MARK not in page and OUTPUT_MARK not in page
    assert client.get(f"/transfers/{transfer.public_id}/").status_code == 200
    assert client.get("/methods/no-such-method/").status_code == 404


@pytest.mark.django_db
def test_the_method_page_lists_the_methods_leaderboard_cards(client, public_version, governance_user):
    card = submit_run_card(
        body=body(make_card(public_version, list(public_version.entries.filter(segment="development")),
                                              method_card=method_card())),
        actor=governance_user,
    )
    page = client.get("/methods/fst-gated/").content.decode()
    assert f"/leaderboard/cards/{card.public_id}/" in page
    assert "Coached LLM gated by a morphological analyser." in page
