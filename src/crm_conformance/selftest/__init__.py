"""Layer 8, the kill matrix: run the suites against every fault and every legal variant.

A conformance suite is only worth what it catches and what it lets through. A fault is
*killed* when a failed test names one of the fault's requirement ids (`SuiteRun.kills`,
the same rule as `tests/catches/`); a fault whose ids no suite test names is
*unreached* and counts as survived. Outcomes are the harness's own (`outcomes.jsonl`):
a blocked or errored test never judged the target, so it never kills a fault, and a
fault that only breaks the tests' setup survives. A *control* is such a fault on
purpose (`Fault.setup_only`): it must survive, or the accounting counts setup failures.
A variant must leave every test green; a failed test under a variant is a false
failure, the worst bug the suite can have, and an errored or blocked one is a problem
of its own, reported apart. The clean reference server must pass too, or nothing else
means anything.

A fault is a switch of the reference server (`reference/faults/`) or a wire fault
(`wire_faults.py`), whose job puts the loopback proxy that commits it in front of the
server. The modules: `planning` (the jobs), `judging` (runs to rows, and pinning a red
combination of variants to its variant), `running` (worker processes), `matrix` (the
rows and totals), `report` (JSON and Markdown), `command` (the CLI's entry point).
"""

from crm_conformance.selftest.command import (
    SelftestRequest,
    choose,
    run_selftest,
)
from crm_conformance.selftest.matrix import Matrix, Row
from crm_conformance.selftest.report import MATRIX_JSON, MATRIX_MARKDOWN, write_report
from crm_conformance.selftest.running import selftest

__all__ = [
    "MATRIX_JSON",
    "MATRIX_MARKDOWN",
    "Matrix",
    "Row",
    "SelftestRequest",
    "choose",
    "run_selftest",
    "selftest",
    "write_report",
]
