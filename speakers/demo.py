"""Demo speakers' languages for `manage.py load_demo` (local use only): the demo speaker reads and writes both
languages of the demo pair, attested by the demo organization, so that they can join the demo review campaign.
Idempotent."""

from organizations.models import Organization

from .models import LanguageSkill, Proficiency
from .services import add_skill, attest_skill


def qualify_demo_speaker(user, organization: Organization, languages: tuple[str, ...]) -> None:
    """`user` states each of `languages` (ISO 639 codes) at the expert level and the site operator attests it in
    the organization, as demo data."""
    for language in languages:
        skill = LanguageSkill.objects.filter(user=user, language=language, variety_key="", script="").first()
        if skill is None:
            skill = add_skill(actor=user, language=language, reading=Proficiency.EXPERT, writing=Proficiency.EXPERT)
        if not skill.attestations.filter(organization=organization, withdrawn_at__isnull=True).exists():
            attest_skill(actor=None, skill=skill, organization=organization)
