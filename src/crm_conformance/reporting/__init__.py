"""Layer 6, the reports of a conformance run, each built from one stream of outcome records.

The harness plugin writes `outcomes.jsonl` (`crm_conformance.core.verdicts.outcomes`);
`summary` turns that stream into `summary.json` and `summary.md`, `certificate` vouches
for them, and the
runner's plugin (`run_plugin`) adds the progress line and the Allure labels. Reporters
read the stream only, and know nothing of each other.
"""
