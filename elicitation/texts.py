"""How elicitation compares texts: the one key for "the same text" (duplicates, a translation identical to its
source) and chrF (sacrebleu) for "close to a machine output"."""

import unicodedata

from sacrebleu.metrics import CHRF

MACHINE_LIKE_CHRF = 85.0
"""Sentence chrF++ (0–100) from which a translation is flagged as suspected machine output: see
docs/elicitation.md, "The machine-paste check", for how it was chosen. A flag is evidence for the verifier, never a
refusal."""

_CHRF = CHRF(word_order=2)


def text_key(text: str) -> str:
    """A text as compared for sameness: NFC, case folded, runs of white space as one space."""
    return " ".join(unicodedata.normalize("NFC", text).casefold().split())


def chrf(hypothesis: str, reference: str) -> float:
    """Sentence-level chrF++ of `hypothesis` against `reference`, both NFC and case folded: a pasted output whose
    capital letters were changed is still the output."""
    return _CHRF.sentence_score(unicodedata.normalize("NFC", hypothesis).casefold(),
                                [unicodedata.normalize("NFC", reference).casefold()]).score
