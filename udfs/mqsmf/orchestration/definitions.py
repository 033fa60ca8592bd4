"""The code location Dagster loads: ``dagster dev -m mqsmf.orchestration.definitions``, from the
dbt project folder (``mqsmf init DIR``) or with ``MQSMF_PROJECT_DIR`` set. See ``dagster_example``."""

from .dagster_example import build_definitions

defs = build_definitions()
