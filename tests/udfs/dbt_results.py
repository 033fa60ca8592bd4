"""What a dbt invocation in the tests did wrong, as lines a failed assertion can show."""

from __future__ import annotations

# A result that is not a failure: models and seeds (success), tests (pass), exposures (no-op).
GOOD_STATUSES = ("success", "pass", "no-op")


def failures(result) -> list[str]:
    """One line per node that did not succeed (or the exception, when dbt itself failed)."""
    if result.exception:
        return [repr(result.exception)]
    return [f"{r.node.unique_id}: {r.status} {r.message}" for r in result.result if r.status not in GOOD_STATUSES]
