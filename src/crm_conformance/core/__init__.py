"""Layer 1, the library (no pytest): HTTP client, target, catalogue, document, checks, outcomes."""
