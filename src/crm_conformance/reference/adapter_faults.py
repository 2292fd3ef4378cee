"""Faults of the reference's provisioning adapter: a broken adapter, not a broken server.

They are apart from the server's fault catalogue (`faults.py`) on purpose: the suites
must never blame the target for them, so the kill matrix does not run them. They prove
that `crm-conformance adapter-check` finds a vendor's adapter mistakes before a run
(`tests/adapter_check/`), and are switched on with `ServerSettings(adapter_faults=...)`
or `serve --adapter-fault NAME`.
"""

ADAPTER_FAULTS: dict[str, str] = {
    "adapter_ignores_workspace": (
        "the adapter ignores `workspace`: records, tokens, people and conversations made "
        "for secondary land in primary"
    ),
    "adapter_permissions_ignored": (
        "the adapter answers a person's permissions as set but withholds nothing: their "
        "OAuth tokens still change records and act on conversations"
    ),
    "adapter_revoke_unknown_ok": (
        "revoking a token id the adapter never issued answers 204 instead of 404: a typo in "
        "a vendor's cleanup goes unnoticed"
    ),
    "adapter_samples_untrue": (
        "the fixtures' custom field samples swap a number field's values: the accepted "
        "one is text the API refuses"
    ),
}
"""Adapter fault name -> what it breaks."""
