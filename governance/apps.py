from django.apps import AppConfig


class GovernanceConfig(AppConfig):
    """Decisions an organization takes together, k of n signatures (docs/governance.md): the registry of decision
    kinds, decisions, signatures and the policy setting k. The apps that own actions register their kinds from
    their own `ready`; governance imports none of them.

    It also keeps the migration history of the organization and submission tables, created under this app and now
    owned by `organizations` and `submissions` (state-only moves, the tables keep their names)."""

    name = "governance"

    def ready(self) -> None:
        from . import decisions

        decisions.register()
