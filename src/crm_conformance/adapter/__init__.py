"""Layer 3, the harness's side of the provisioning adapter: its client, the features tests need."""
