"""Layer 4, the fuzz layer: schemathesis over spec/openapi.yaml, its failures charged."""
