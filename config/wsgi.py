import gc
import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
application = get_wsgi_application()

# What a worker loaded to start (Django, the apps, their modules) lives as long as the process: collected once, then
# kept out of the garbage collector's full collections, which walk only what requests leave behind. Under the rating
# loop's load a full collection stopped a worker for 120–180 ms; frozen, about 40 ms (docs/performance.md).
gc.collect()
gc.freeze()
