"""Layer 7, the commands around one run: run, smoke, sweep, report --merge, the HTML report."""
