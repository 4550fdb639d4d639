"""Which hash of its dataset version a card pins: the one everyone is shown, one kept from the public, or the
public download's."""


from django.contrib.auth.models import AnonymousUser

from corpus.models import DatasetVersion
from corpus.selectors import (
    VersionHash,
    public_download_hash,
    version_hash,
)


def public_hash(version: DatasetVersion) -> VersionHash:
    """The version's hash as everyone is shown it (corpus.selectors.version_hash for a visitor): the keyed hash
    when the real one would confirm guesses of secret entries."""
    return version_hash(AnonymousUser(), version)


def pins_hash_kept_from_public(card: dict, version: DatasetVersion) -> bool:
    """Whether the card pins the version's real hash while the public is shown a keyed one: neither the hash everyone
    is shown nor the public download's (whose hash is public), so its own fingerprint, computed over that hash, must
    not be shown or used as its setup's key."""
    return card["dataset"]["sha256"] not in (public_hash(version).value, public_download_hash(version))


def pins_public_download(card: dict, version: DatasetVersion) -> bool:
    """Whether the card pins the download of the version's public segments (corpus.selectors.public_download_hash)
    rather than the version's own hash: such a run saw public entries only."""
    return card["dataset"]["sha256"] == public_download_hash(version) != version.sha256
