"""The machine-paste threshold (elicitation.texts.MACHINE_LIKE_CHRF) as calibrated: a machine output pasted with
surface touches (capitals, final punctuation, one accent, a moved phrase) is flagged; translations written
independently of it are not, even short ones sharing most words. docs/elicitation.md explains the choice."""

import pytest

from elicitation.texts import MACHINE_LIKE_CHRF, chrf, text_key

OUTPUT = "La clinique ouvre à neuf heures demain matin."

PASTED = [
    ("Niwâpamâw atim anohc.", "niwâpamâw atim anohc"),
    ("La clinique ouvre a neuf heures demain matin.", OUTPUT),
    ("la clinique ouvre à neuf heures demain matin", OUTPUT),
    ("Demain matin, la clinique ouvre à neuf heures.", OUTPUT),
]
INDEPENDENT = [
    ("La clinique ouvrira ses portes à 9 h demain.", OUTPUT),
    ("Demain, le dispensaire est ouvert dès neuf heures.", OUTPUT),
    ("Prenez un comprimé deux fois par jour.", "Prendre un comprimé matin et soir."),
    ("Prenez un comprimé deux fois par jour.", "Un comprimé, deux fois par jour."),
    ("atim", "atimwa"),
]


@pytest.mark.parametrize("translation, output", PASTED)
def test_a_pasted_output_with_surface_touches_is_flagged(translation, output):
    assert chrf(translation, output) >= MACHINE_LIKE_CHRF


@pytest.mark.parametrize("translation, output", INDEPENDENT)
def test_an_independent_translation_is_not(translation, output):
    assert chrf(translation, output) < MACHINE_LIKE_CHRF


def test_sameness_folds_case_spacing_and_normalization():
    assert text_key("  Niwa\u0302pama\u0302w   ATIM ") == text_key("niwâpamâw atim")
