"""The gate's one pass against the expectations on the whole frames (shared by the gate's tests).

GX sees only the rows some check's SQL predicate flags (``mqsmf.quality.gate``), so a predicate that
missed rows its expectation fails would hide them. ``run_gate(..., prefilter=False)`` runs the same
expectations on the whole frames, one Spark job per expectation, independently of the predicates:
both ways must give every check the same verdict, violation count and rows evaluated.
"""

from __future__ import annotations


def verdicts_of_both_ways(spark, stage: str, **kw) -> tuple[dict, dict, dict]:
    """({check: (status, GX count, rows evaluated)} of the one pass, the same of the whole frames,
    the frames' rows); asserts the two ways agree."""
    from mqsmf.quality.gate import run_gate

    kw = {"docs_dir": None, "write": False, **kw}
    one_pass, whole = run_gate(spark, stage, **kw), run_gate(spark, stage, prefilter=False, **kw)
    found = [
        {o.check.name: (o.status, o.gx_unexpected, o.evaluated_rows) for o in r.outcomes} for r in (one_pass, whole)
    ]
    assert one_pass.frame_rows == whole.frame_rows
    assert found[0] == found[1], {k: (found[0][k], found[1].get(k)) for k in found[0] if found[0][k] != found[1].get(k)}
    return found[0], found[1], whole.frame_rows
