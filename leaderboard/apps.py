from django.apps import AppConfig


class LeaderboardConfig(AppConfig):
    name = "leaderboard"

    def ready(self):
        # The system check that production shares the cache its API throttles count in.
        from config import checks  # noqa: F401
