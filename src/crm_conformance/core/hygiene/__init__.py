"""Output hygiene: secrets redacted and target text made inert wherever a report shows it."""
