"""What the elicitation tests share: a dataset whose community consented to corpus creation, a batch of sources
read from CSV, and qualified people."""

import datetime
import uuid

from corpus.models import ConsentUse
from corpus.services import grant_consent, import_corpus
from elicitation import services
from elicitation.sources import checked_rows, read_csv

from .conftest import corpus_bytes, entry, member

SOURCES_CSV = (
    "source,context,difficulty,register,domain,segment,origin,origin_name,origin_license\n"
    "hello,a greeting at the door,1,conversational,conv,development,community,,\n"
    "dog,,1,conversational,conv,development,community,,\n"
    "I see the dog,,2,conversational,conv,gold_standard,community,,\n"
    "The clinic opens at nine,,2,formal,medical,development,public_source,Clinic poster,CC-BY-4.0\n"
    "Take one tablet twice a day,,3,formal,medical,diagnostic,machine_proposed,source-proposer-1,\n"
)


def consented_dataset(organization, uses=(ConsentUse.CORPUS_CREATION,)):
    version = import_corpus(data=corpus_bytes([entry(1, difficulty=1, domain="conv", register="conversational")]),
                            organization=organization, actor=None).version
    from accounts.models import User

    recorder, _ = User.objects.get_or_create(email="consent-recorder@example.org")
    grant_consent(dataset=version.dataset, uses=list(uses), granted_by_name="Council resolution (test)",
                  granted_on=datetime.date(2026, 1, 15), actor=recorder, document_reference="Binder 7 (test)")
    return version


def make_batch(curator, dataset, csv_text: str = SOURCES_CSV, **settings):
    values = services.BatchSettings(title="Clinic and home", source_language="en", target_language="crk",
                                    guideline="Write as you would say it to an elder.", **settings)
    return services.create_batch(actor=curator, dataset=dataset, values=values,
                                 rows=checked_rows(read_csv(csv_text.encode()), set()))


def people(organization, count: int, prefix: str = "person"):
    return [member(f"{prefix}{n}@steward.example", organization, "speaker") for n in range(count)]


def translate(user, source, text: str, **fields):
    return services.submit_translation(actor=user, source=source, submission=services.TranslationSubmission(
        client_id=fields.pop("client_id", uuid.uuid4()), text=text, **fields))


def verify(user, translation, outcome: str, comment: str = "", text: str = "", **fields):
    from elicitation.selectors import current_version

    return services.verify_translation(actor=user, translation=translation, submission=services.VerificationSubmission(
        client_id=fields.pop("client_id", uuid.uuid4()), outcome=outcome,
        version=fields.pop("version", None) or current_version(translation).number, comment=comment, text=text,
        **fields))
