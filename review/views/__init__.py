"""The review app's pages, one module per domain (urls.py names each view by its module)."""
