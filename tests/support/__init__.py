"""What the project's tests share: fake targets, a headless browser, the tier reader,
the document's tables. On `sys.path` through pytest's `pythonpath = ["tests"]`
(pyproject.toml), so a test imports `support.fake_target`, never edits the path."""
