"""Layer 8, the adapter-check command: each adapter feature against its contract and the API."""
