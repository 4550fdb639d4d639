"""The corpus's choices as pages show them, in the reader's language. The models keep their English labels
(`get_FOO_display`, `ConsentUse.label`): migrations record them, which translating them would churn."""

from django.utils.translation import pgettext_lazy

from .models import ConsentUse, Context, Domain, Register, Segment

SEGMENT_LABELS = {
    Segment.DEVELOPMENT: pgettext_lazy("segment", "Development"),
    Segment.DIAGNOSTIC: pgettext_lazy("segment", "Diagnostic"),
    Segment.GOLD_STANDARD: pgettext_lazy("segment", "Gold standard"),
    Segment.HELD_OUT: pgettext_lazy("segment", "Held out"),
}
REGISTER_LABELS = {
    Register.CONVERSATIONAL: pgettext_lazy("register", "Conversational"),
    Register.FORMAL: pgettext_lazy("register", "Formal"),
    Register.TECHNICAL: pgettext_lazy("register", "Technical"),
    Register.CEREMONIAL: pgettext_lazy("register", "Ceremonial"),
    Register.EDUCATIONAL: pgettext_lazy("register", "Educational"),
}
CONTEXT_LABELS = {
    Context.GREETING: pgettext_lazy("context", "Greeting"),
    Context.DECLARATION: pgettext_lazy("context", "Declaration"),
    Context.QUESTION: pgettext_lazy("context", "Question"),
    Context.INSTRUCTION: pgettext_lazy("context", "Instruction"),
    Context.NARRATIVE: pgettext_lazy("context", "Narrative"),
    Context.LABEL: pgettext_lazy("context", "Label"),
    Context.ERROR: pgettext_lazy("context", "Error"),
}
DOMAIN_LABELS = {
    Domain.CONV: pgettext_lazy("domain", "Conversation"),
    Domain.ECOMMERCE: pgettext_lazy("domain", "E-commerce"),
    Domain.EDU: pgettext_lazy("domain", "Education"),
    Domain.FINANCIAL: pgettext_lazy("domain", "Financial"),
    Domain.GOV: pgettext_lazy("domain", "Government"),
    Domain.LEGAL: pgettext_lazy("domain", "Legal"),
    Domain.LITERARY: pgettext_lazy("domain", "Literary"),
    Domain.MARKETING: pgettext_lazy("domain", "Marketing"),
    Domain.MEDICAL: pgettext_lazy("domain", "Medical"),
    Domain.NEWS: pgettext_lazy("domain", "News"),
    Domain.RELIGIOUS: pgettext_lazy("domain", "Religious"),
    Domain.SCIENTIFIC: pgettext_lazy("domain", "Scientific"),
    Domain.SUBTITLES: pgettext_lazy("domain", "Subtitles"),
    Domain.SUPPORT: pgettext_lazy("domain", "Support"),
    Domain.TECH: pgettext_lazy("domain", "Technology"),
    Domain.UI: pgettext_lazy("domain", "User interface"),
}
CONSENT_USE_LABELS = {
    ConsentUse.PUBLIC_RELEASE: pgettext_lazy("consent use",
                                             "Public release of the development and diagnostic segments"),
    ConsentUse.EVALUATION: pgettext_lazy("consent use", "Evaluation"),
    ConsentUse.HUMAN_REVIEW: pgettext_lazy("consent use", "Human review"),
    ConsentUse.GATEWAY_DISCLOSURE: pgettext_lazy("consent use",
                                                 "A1 gateway disclosure of secret sources to a model provider"),
    ConsentUse.CORPUS_CREATION: pgettext_lazy("consent use", "Corpus creation from speakers' own translations"),
}
CHOICE_LABELS = {"segment": SEGMENT_LABELS, "register": REGISTER_LABELS, "context": CONTEXT_LABELS,
                 "domain": DOMAIN_LABELS, "consent_use": CONSENT_USE_LABELS}


def choice_label(field: str, value: str) -> str:
    """The label of `value` among `field`'s choices in the active language; the value itself when unknown."""
    return str(CHOICE_LABELS[field].get(value, value))
