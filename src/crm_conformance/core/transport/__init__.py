"""Transport: the API client and what it is made of (bounds on an exchange, retries of
transport faults, pacing by the rate headers, the ledger of created records, the run lock,
the memory of every answer, the curl line of a request)."""
