"""Reports of a conformance run, each built from one stream of outcome records.

The collector plugin (loaded by the runner with `-p`) writes `outcomes.jsonl` on the
xdist controller; `summary` turns that stream into `summary.json` and `summary.md`.
Reporters read the stream only, and know nothing of each other.
"""
