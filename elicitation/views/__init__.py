"""The elicitation pages, one module per domain (urls.py names each view by its module). Curators: batches, their
sources and coverage, accepted translations into a version (`curation`), the dashboard and the pay page (`figures`).
Speakers: translating and verifying, one item per round trip, as plain form posts that elicit.js turns into a queue
kept on the device (`translating`, `verifying`), their start page, own work and withdrawal (`own_work`). Thin: every
rule is in services and selectors."""
