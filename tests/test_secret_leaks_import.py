"""Importing under a dataset id another organization stewards is refused with one message, whatever that
dataset is (private, published, withdrawn) and through every door (page, API, command): the refusal names no
organization and says nothing about the dataset behind the id."""

import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.core.management.base import CommandError

from corpus.models import ConsentRecord, Dataset
from corpus.services import import_corpus, revoke_consent
from corpus.validation import CorpusFileError

from .conftest import corpus_bytes, entry, member, publish

pytestmark = pytest.mark.django_db
TAKEN = "taken-set"


@pytest.fixture
def importer(other_org):
    return member("curator@other.example", other_org, "curator")


def steward_dataset(steward) -> Dataset:
    """A private dataset of the steward (with a secret entry), under the id the other organization wants."""
    return import_corpus(
        data=corpus_bytes([entry(1), entry(2, "gold_standard")], id=TAKEN),
        organization=steward,
        actor=None,
    ).version.dataset


def refusals(client, other_org, importer, tmp_path) -> dict[str, object]:
    """The refusal of the same file through the service, the API, the page and the command."""
    data = corpus_bytes([entry(1)], id=TAKEN, version="9.0")
    with pytest.raises(CorpusFileError) as service:
        import_corpus(data=data, organization=other_org, actor=None)
    client.force_login(importer)
    api = client.post(f"/api/v1/corpus-imports/?org={other_org.slug}", data, content_type="application/json")
    page = client.post("/datasets/import/", {"organization": other_org.slug,
                                             "file": SimpleUploadedFile("corpus.json", data)})
    path = tmp_path / "corpus.json"
    path.write_bytes(data)
    stderr = io.StringIO()
    with pytest.raises(CommandError) as command:
        call_command("import_corpus", str(path), org=other_org.slug, stderr=stderr)
    return {
        "service": [str(problem) for problem in service.value.problems],
        "api": (api.status_code, api.json()),
        "page": (page.status_code, [str(problem) for problem in page.context["problems"]]),
        "command": (str(command.value), stderr.getvalue()),
    }


@pytest.mark.parametrize("state", ["published", "withdrawn"])
def test_a_taken_id_gets_one_answer_whatever_the_dataset_behind_it(client, steward, other_org, importer, tmp_path,
                                                                   state):
    dataset = steward_dataset(steward)
    private = refusals(client, other_org, importer, tmp_path)
    assert private["api"][0] == 400 and private["page"][0] == 400
    publish(dataset)
    if state == "withdrawn":
        record = ConsentRecord.objects.get(dataset=dataset)
        revoke_consent(record=record, actor=record.recorded_by, reason="The council withdrew it.")
    assert refusals(client, other_org, importer, tmp_path) == private


def test_the_refusal_names_no_organization_and_nothing_is_stored(client, steward, other_org, importer, tmp_path):
    steward_dataset(steward)
    answers = refusals(client, other_org, importer, tmp_path)
    assert answers["service"] == [f"field 'dataset.id': dataset id {TAKEN!r} is not available to Other Nation; "
                                  "choose another dataset id"]
    for answer in answers.values():
        text = str(answer)
        assert "Steward Nation" not in text and "steward" not in text.lower() and "another organization" not in text
    assert Dataset.objects.get(identifier=TAKEN).versions.count() == 1
