"""Settings of the benchmark's processes and server: the project's own settings, with the bench URLconf
(scripts/bench_urls.py: the project's routes plus one bare view). Loaded only by scripts/bench.py, with
DJANGO_SETTINGS_MODULE=bench_site and `scripts/` on the Python path."""

from config.settings import *  # noqa: F403 - the project's settings, unchanged but for the URLconf

ROOT_URLCONF = "bench_urls"
