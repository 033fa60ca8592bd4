"""A Dagster code location for mqsmf: load once, build the dbt models, gate them.

- ``smf_raw/<table>`` (one asset per raw table, made by one step): ``mqsmf load`` of the run's
  SMF dumps (run config ``ops.smf_raw.config.paths``) into the raw tables, once per run. Metadata:
  the rows this load inserted into each table, and the load's summary on ``smf_raw/smf_load_audit``.
- the dbt models and seeds (assets, through dagster-dbt): one ``dbt build``; the dbt sources of
  ``smf_raw`` are those raw-table assets, so the staging models depend on the load. dbt's own
  tests become Dagster asset checks too. No ``smf_paths`` var is passed, so the project's
  on-run-start hook does nothing: the load is not repeated by dbt.
- ``mqsmf_gate`` (asset checks): the data-quality gate (``mqsmf check --stage all --json``), one
  Dagster asset check per gate check: raw-stage checks on the raw table they read (checks over
  several raw tables on ``smf_raw/smf_load_audit``), marts-stage checks on the mart they reconcile; ``error`` checks have ERROR severity, ``warn`` checks WARN.
- jobs and schedules: ``mqsmf_daily`` (everything, at 01:30 UTC, for yesterday's folder) and
  ``mqsmf_hourly_load`` (load + raw checks, at minute 10, for the previous hour's folder). Dumps are
  expected under ``$MQSMF_SMF_LANDING/YYYY-MM-DD/HH/`` (the daily run takes the whole day's folder).

Every step runs as its own process (``mqsmf load``, ``dbt build``, ``mqsmf check``), as a worker of
a deployment would: the local target's embedded metastore admits one Spark process at a time, and
each step releases it when it ends. Its steps share the concurrency pool ``mqsmf_warehouse``: with
``concurrency: {pools: {default_limit: 1}}`` in ``dagster.yaml`` two runs (the hourly and the daily
job, a backfill) take turns instead of meeting at the warehouse; a load meeting another anyway waits
for the warehouse's load lock (``mqsmf.load_lock``). Dagster loads it as ``dagster dev -m mqsmf.orchestration.definitions`` (that module holds
``defs = build_definitions()``), from the dbt project folder or with ``MQSMF_PROJECT_DIR`` set.
"""

# No `from __future__ import annotations`: Dagster reads the run-config class from the annotations.

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import dagster as dg
from dagster_dbt import DagsterDbtTranslator, DbtCliResource, DbtProject, dbt_assets

from ..quality.checks import MARTS, RAW, catalogue
from ..spark.profile import resolve_project_dir
from ..warehouse import AUDIT_TABLE, PCF_SOURCE, QUARANTINE_TABLE, SMF_SOURCE, dbt_source, raw_table, raw_tables

LOAD_ASSETS = "smf_raw"  # the load's multi-asset (and op) name; also its asset group
AUDIT_KEY = dg.AssetKey([dbt_source(AUDIT_TABLE), AUDIT_TABLE])


# Every step that opens the warehouse: a Dagster concurrency pool (limit it to 1 in dagster.yaml).
WAREHOUSE_POOL = "mqsmf_warehouse"


def raw_key(table: str) -> dg.AssetKey:
    """A raw table's asset key: the key dagster-dbt gives the dbt source that declares it."""
    return dg.AssetKey([dbt_source(table), table])


DEFAULT_LANDING = "/data/smf"


class SmfLoadConfig(dg.Config):
    """Run config of the ``smf_raw`` asset: what this run loads."""

    paths: list[str] = []
    framing: str = "auto"


def _mqsmf(args: list[str], project_dir: Path) -> subprocess.CompletedProcess:
    """``mqsmf ARGS`` as a separate process, in the project folder, with this interpreter."""
    env = {**os.environ, "MQSMF_PROJECT_DIR": str(project_dir), "PYSPARK_PYTHON": sys.executable}
    return subprocess.run(
        [sys.executable, "-m", "mqsmf.cli", *args],
        cwd=project_dir,
        env=env,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
    )


def _failure(what: str, done: subprocess.CompletedProcess) -> dg.Failure:
    tail = done.stderr.strip().splitlines()[-1:] or ["(no message)"]
    return dg.Failure(
        f"{what} ended with exit status {done.returncode}: {tail[0]}", metadata={"stderr": done.stderr[-5000:]}
    )


class MqsmfTranslator(DagsterDbtTranslator):
    """The dbt sources of the raw tables are the load's raw-table assets; everything else as dbt names it."""

    def get_asset_key(self, dbt_resource_props: Mapping[str, Any]) -> dg.AssetKey:
        if dbt_resource_props.get("resource_type") == "source" and dbt_resource_props.get("source_name") in (
            SMF_SOURCE,
            PCF_SOURCE,
        ):
            return raw_key(dbt_resource_props["name"])
        return super().get_asset_key(dbt_resource_props)


def gate_check_specs(dbt_keys: Mapping[str, dg.AssetKey]) -> list[dg.AssetCheckSpec]:
    """One asset check per gate check: raw-stage checks on the raw table their frame reads (frames
    over several raw tables: the audit table), marts-stage checks on the dbt model their frame
    reconciles (its first table)."""
    cat = catalogue()
    specs = []
    for check in cat.checks:
        frame = cat.frames[check.frame]
        if frame.stage == RAW:
            asset = raw_key(frame.tables[0]) if len(frame.tables) == 1 else AUDIT_KEY
        else:
            asset = dbt_keys[frame.tables[0]]
        specs.append(
            dg.AssetCheckSpec(
                name=check.name,
                asset=asset,
                description=f"[{check.severity}] {check.text}",
                metadata={"mqsmf/stage": frame.stage, "mqsmf/frame": frame.name},
            )
        )
    return specs


def gate_outcomes(report: Any) -> dict[str, dict]:
    """check name -> its outcome, from ``mqsmf check --json``: a list of stage results (or one)."""
    stages = report if isinstance(report, list) else report.get("stages", [report])
    return {c["check"]: c for stage in stages for c in stage.get("checks", [])}


def build_definitions(
    project_dir: str | os.PathLike | None = None, target_path: str | os.PathLike | None = None
) -> dg.Definitions:
    """The code location for the dbt project at ``project_dir`` (default: found from the current
    folder or ``$MQSMF_PROJECT_DIR``). ``target_path``: dbt's target folder for the manifest and
    the runs (default ``<project>/target/dagster``); the manifest is parsed once if missing."""
    project_dir = resolve_project_dir(project_dir)
    dbt_project = DbtProject(
        project_dir=project_dir,
        profiles_dir=project_dir / "profiles",
        target="local",
        target_path=Path(target_path) if target_path else project_dir / "target" / "dagster",
    )
    if not dbt_project.manifest_path.exists():
        dbt_project.preparer.prepare(dbt_project)  # dbt parse
    translator = MqsmfTranslator()

    raw_specs = [
        dg.AssetSpec(raw_key(table), group_name=LOAD_ASSETS, description=f"raw table {table} (mqsmf load)")
        for table in raw_tables()
    ]

    @dg.multi_asset(specs=raw_specs, name=LOAD_ASSETS, pool=WAREHOUSE_POOL)
    def smf_raw(context: dg.AssetExecutionContext, config: SmfLoadConfig):
        if not config.paths:
            raise dg.Failure("no SMF dumps to load: give the run config ops.smf_raw.config.paths")
        done = _mqsmf(["load", "--json", "--no-progress", "--framing", config.framing, *config.paths], project_dir)
        if done.returncode not in (0, 1):  # 1: quarantined spans, reported by the gate's quarantine check
            raise _failure("mqsmf load", done)
        summary = json.loads(done.stdout)
        context.log.info(done.stderr.strip())
        inserted = {raw_table(name): rows for name, rows in summary["rows_inserted"].items()}
        inserted[QUARANTINE_TABLE] = summary["quarantine_rows_inserted"]
        for spec in raw_specs:
            table = spec.key.path[-1]
            metadata = {"load_id": summary["load_id"], "rows_inserted": inserted.get(table, 0)}
            if spec.key == AUDIT_KEY:
                metadata.update(
                    files=summary["files"],
                    bytes=summary["bytes"],
                    records_decoded=summary["records_decoded"],
                    records_quarantined=summary["records_quarantined"],
                    paths=dg.MetadataValue.json(list(config.paths)),
                )
            yield dg.MaterializeResult(asset_key=spec.key, metadata=metadata)

    @dbt_assets(
        manifest=dbt_project.manifest_path, project=dbt_project, dagster_dbt_translator=translator, pool=WAREHOUSE_POOL
    )
    def mqsmf_dbt_models(context: dg.AssetExecutionContext, dbt: DbtCliResource):
        # Each run's dbt artifacts under the location's target folder (dagster-dbt's default is the
        # project's target/, shared with every other dbt invocation there).
        runs = dbt_project.target_path / "runs" / context.run.run_id
        yield from dbt.cli(["build"], context=context, target_path=runs).stream()

    dbt_keys = {
        key.path[-1]: key for key in mqsmf_dbt_models.keys
    }  # model or seed name -> asset key, as the translator made them
    specs = gate_check_specs(dbt_keys)
    stage_of = {spec.key: spec.metadata["mqsmf/stage"] for spec in specs}

    @dg.multi_asset_check(specs=specs, name="mqsmf_gate", can_subset=True, pool=WAREHOUSE_POOL)
    def mqsmf_gate(context: dg.AssetCheckExecutionContext):
        selected = set(context.selected_asset_check_keys)
        stages = {stage_of[key] for key in selected}
        stage = "all" if stages == {RAW, MARTS} else stages.pop()
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "gate.json"
            done = _mqsmf(["check", "--stage", stage, "--no-docs", "--json", str(out)], project_dir)
            if done.returncode not in (0, 1) or not out.exists():
                raise _failure("mqsmf check", done)
            outcomes = gate_outcomes(json.loads(out.read_text()))
        context.log.info(done.stdout[-5000:])
        for spec in specs:
            if spec.key not in selected:
                continue
            o = outcomes.get(spec.name, {"status": "not run", "severity": "error", "violations": None})
            yield dg.AssetCheckResult(
                check_name=spec.name,
                asset_key=spec.asset_key,
                passed=o["status"] in ("passed", "skipped"),
                severity=dg.AssetCheckSeverity.ERROR if o["severity"] == "error" else dg.AssetCheckSeverity.WARN,
                metadata={
                    "status": o["status"],
                    "violations": o.get("violations"),
                    "evaluated_rows": o.get("evaluated_rows"),
                    "note": o.get("note") or "",
                },
            )

    daily = dg.define_asset_job("mqsmf_daily", selection=dg.AssetSelection.all())
    hourly = dg.define_asset_job("mqsmf_hourly_load", selection=dg.AssetSelection.assets(*(s.key for s in raw_specs)))
    return dg.Definitions(
        assets=[smf_raw, mqsmf_dbt_models],
        asset_checks=[mqsmf_gate],
        jobs=[daily, hourly],
        schedules=[daily_schedule(daily), hourly_schedule(hourly)],
        resources={"dbt": DbtCliResource(project_dir=dbt_project)},
    )


def landing_folder(start: datetime, hourly: bool) -> str:
    """``$MQSMF_SMF_LANDING/YYYY-MM-DD/`` (a day) or ``.../YYYY-MM-DD/HH/`` (an hour)."""
    root = os.environ.get("MQSMF_SMF_LANDING", DEFAULT_LANDING).rstrip("/")
    return f"{root}/{start:%Y-%m-%d}/" + (f"{start:%H}/" if hourly else "")


def _load_run(start: datetime, hourly: bool) -> dg.RunRequest:
    folder = landing_folder(start, hourly)
    return dg.RunRequest(
        run_key=folder,
        run_config=dg.RunConfig(ops={LOAD_ASSETS: SmfLoadConfig(paths=[folder])}),
        tags={"mqsmf/landing": folder},
    )


def daily_schedule(job) -> dg.ScheduleDefinition:
    @dg.schedule(job=job, cron_schedule="30 1 * * *", execution_timezone="UTC", name="mqsmf_daily_schedule")
    def _daily(context: dg.ScheduleEvaluationContext) -> dg.RunRequest:
        return _load_run(context.scheduled_execution_time - timedelta(days=1), hourly=False)

    return _daily


def hourly_schedule(job) -> dg.ScheduleDefinition:
    @dg.schedule(job=job, cron_schedule="10 * * * *", execution_timezone="UTC", name="mqsmf_hourly_schedule")
    def _hourly(context: dg.ScheduleEvaluationContext) -> dg.RunRequest:
        return _load_run(context.scheduled_execution_time - timedelta(hours=1), hourly=True)

    return _hourly
