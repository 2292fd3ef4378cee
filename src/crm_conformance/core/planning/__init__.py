"""Run planning: the profiles (how much a run generates) and the partition of tests into shards."""
