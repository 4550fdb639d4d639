"""The leaderboard's writes, one module per job: run cards coming in (`intake`, with the hash they pin,
`pinning`), their verification (`scoring`), methods registered without a card (`method_registry`), governance's
decisions of the leaderboard (`moderation`), declared conflicts of interest (`conflicts`) and A1 runs on secret
sources (`a1_runs`); their refusals in `errors`. Callers import from here."""

from .a1_runs import (  # noqa: F401 - the package's interface
    approve_a1_run,
    check_a1_run,
)
from .conflicts import (  # noqa: F401 - the package's interface
    conflict_declared,
    declare_conflict,
    withdraw_conflict,
)
from .errors import (  # noqa: F401 - the package's interface
    LeaderboardError,
    RunCardRejected,
    SecretTextRefusalsUsedUp,
    SecretTextRefused,
    written_reason,
)
from .intake import (  # noqa: F401 - the package's interface
    accept_card_without_entries,
    accept_run_card,
    member_text,
    parse_card,
    record_secret_text_refusal,
    split_submission,
    submit_run_card,
    unstorable_strings,
)
from .method_registry import (  # noqa: F401 - the package's interface
    register_method,
)
from .moderation import (  # noqa: F401 - the package's interface
    TIER_BAND_FIELDS,
    DisqualificationNotAllowed,
    disqualify,
    lift_disqualification,
    organization_pairs,
    set_tier_bands,
)
from .scoring import (  # noqa: F401 - the package's interface
    mark_verification_failed,
    record_reproduction,
    verify_run_card,
    verify_secondary_scores,
)
