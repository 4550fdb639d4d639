"""The upstream harness's PostgREST-compatible facade under `/supabase/` (docs/run-cards.md, "Publishing from the
upstream harness"): `views` answer its calls as PostgREST does, `query` reads PostgREST's query language, `intake`
holds the writes (a card's row, then its per-entry rows), `selectors` the reads (the install read, the language
tables)."""
