"""Running mqsmf from a scheduler. ``dagster_example`` is a complete Dagster code location (SMF
load as an asset, the dbt models as assets through dagster-dbt, the data-quality gate's checks as
asset checks, daily and hourly schedules); README "Orchestration" says how to run it. Needs the
``orchestration`` extra: ``pip install 'mqsmf[orchestration]'``."""
