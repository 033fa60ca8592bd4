"""Queue-sharing group scenario generator: ``mqsmf generate``.

Python API::

    from mqsmf.generate import ScenarioConfig, Target, generate_scenario, write_scenario

    cfg = ScenarioConfig(seed=7, qmgrs=4, queues=50, intervals=6,
                         inject=(Target.parse("BP01"), Target.parse("Q03@QM03")),
                         violate=(Target.parse("nmag_gt_flgt"),))
    sc = generate_scenario(cfg)           # runs the model; nothing written yet
    sc.truth("QQST")                      # pyarrow Table: every QQST instance, typed like the decoder's rows
    sc.manifest["injected"]               # where each pathology is, with the rule's value and threshold
    write_scenario(sc, "qsg.dat", framing="rdw", corrupt=["bitflip"])   # + qsg.dat.manifest.json

The model, the record layout rules and the manifest are described in the modules: ``topology``
(queue managers, pools, page sets, CF structures, queues), ``workload`` (the interval simulation
and its invariants) with ``families`` (one module per structure family: the fields it computes)
and ``state`` (what they carry between intervals), ``pathology`` (--inject / --violate / partial
records), ``mp16_oracle`` (the oracle that proves each injection fires), ``corrupt`` (--corrupt),
``scenario`` (records, truth, manifest).
This module imports only numpy and pyarrow.
"""

from __future__ import annotations

import argparse
import sys

from ..framing import MAX_BLOCK
from .config import (
    CORRUPTIONS,
    PRESETS,
    SUPPORTED_CHECKS,
    SUPPORTED_RULES,
    VERSIONS,
    QmgrPlan,
    ScenarioConfig,
    Target,
    parse_targets,
)
from .mp16_oracle import structure_size_mb
from .pathology import PlanError
from .scenario import Scenario, generate_scenario, write_scenario

__all__ = [
    "CORRUPTIONS",
    "PRESETS",
    "SUPPORTED_CHECKS",
    "SUPPORTED_RULES",
    "VERSIONS",
    "QmgrPlan",
    "Scenario",
    "ScenarioConfig",
    "Target",
    "add_subcommand",
    "buffer_pool_roles",
    "site_config_vars",
    "config_from_args",
    "generate_scenario",
    "plan_scenario",
    "write_scenario",
]


def buffer_pool_roles(manifest: dict) -> list[dict]:
    """A generated scenario's buffer pool roles (its site configuration) as rows of the dbt var
    ``mp16_buffer_pool_roles``: without them every pool but 0 is UNKNOWN to the MP16 rules."""
    return [
        {"qmgr_name": q["name"], "buffer_pool_id": str(p["pool"]), "role": p["role"]}
        for q in manifest["qmgrs"]
        for p in q["buffer_pools"]
    ]


def site_config_vars(manifest: dict) -> dict[str, list[dict]]:
    """A generated scenario's site configuration as the dbt vars a site would set: buffer pool roles
    (``mp16_buffer_pool_roles``), every QSG's CF structure limits as the topology built them
    (``mp16_cf_structure_config``: CF06, CF08, CF15) with the CFLEVELs (CF16), recovery targets and
    BACKUP CFSTRUCT intervals (LOG12) its injections declared, the queues they made IMS bridge queues
    (``mp16_queue_config``: Q09), per queue manager (``mp16_queue_manager_config``) those they
    declared production (BP12), the EPVT size they declared for channel initiators (CHIN09), their
    page set write rates (BP14), restart targets and page set backup intervals (LOG13), unstriped
    active logs (LOG15) and channel initiator user ids (CHIN10), and the processors and MAXPROCUSER
    they declared for LPARs (``mp16_system_config``: CHIN02, CHIN07, CHIN10). Without them the
    configuration rules stay silent (CHIN09 uses MP16's planning value, BP14 judges at MP16's default
    rate)."""
    qsgs = sorted({q["qsg"] for q in manifest["qmgrs"] if q.get("qsg")})
    site = manifest.get("site_config", {})
    return {
        "mp16_buffer_pool_roles": buffer_pool_roles(manifest),
        "mp16_cf_structure_config": [
            {
                "qsg_name": qsg,
                "structure_name": s["name"],
                "entries_max": s["entries_max"],
                "elements_max": s["elements_max"],
                "size_mb": structure_size_mb(s["entries_max"], s["elements_max"]),
            }
            for qsg in qsgs
            for s in manifest["cf_structures"]
        ]
        + site.get("cf_levels", [])
        + site.get("cf_recovery", []),
        "mp16_queue_config": [{**q, "is_ims_bridge": True} for q in site.get("ims_bridge_queues", [])],
        "mp16_queue_manager_config": [{**q, "is_production": True} for q in site.get("production_qmgrs", [])]
        + site.get("chin_epvt", [])
        + site.get("page_set_write_rates", [])
        + site.get("page_set_recovery", [])
        + [{**q, "is_log_striped": False} for q in site.get("unstriped_logs", [])]
        + site.get("chin_user_ids", []),
        "mp16_system_config": site.get("processors", []) + site.get("omvs_limits", []),
    }


def plan_scenario(config: ScenarioConfig) -> Scenario:
    """A scenario planned but not yet run (``write_scenario`` runs it once while writing)."""
    return Scenario(config)


def add_subcommand(subparsers) -> None:
    g = subparsers.add_parser(
        "generate",
        help="write a queue-sharing group's SMF 115 dump (and its manifest) from a seeded scenario",
        description="Generate SMF 115 statistics of a queue-sharing group: subtypes 1, 2, 201, 215, 216 "
        "(QQST) and 231 for MQ 9.3.0 to 10.0, with optional MP16 pathologies, invariant violations and "
        "file damage. Writes FILE and FILE.manifest.json.",
    )
    g.add_argument("--out", required=True, metavar="FILE", help="dump file to write")
    g.add_argument(
        "--seed",
        type=int,
        default=ScenarioConfig.seed,
        help=f"scenario seed: same seed, same file (default {ScenarioConfig.seed})",
    )
    g.add_argument(
        "--preset",
        choices=sorted(PRESETS),
        help="large-day: 10 qmgrs x 2,000 queues x 48 intervals; estate: two QSGs and three standalone queue "
        "managers with their own STATIME and starts, a restart, a lost interval, mixed releases",
    )
    g.add_argument(
        "--qmgr",
        action="append",
        metavar="NAME[@QSG]:VERSION:STATIME[+OFFSET][:restart=K+M][:lost=K;K]",
        help="an estate's queue manager (repeatable; minutes), e.g. QA02@QSGA:9.4.3:30+7 or QS01:10.0.0:15; "
        "replaces --qmgrs/--qsg/--versions and the preset's queue managers",
    )
    g.add_argument("--qmgrs", type=int, help=f"queue managers (default {ScenarioConfig.qmgrs})")
    g.add_argument("--lpars", type=int, help=f"LPARs they run on (default {ScenarioConfig.lpars})")
    g.add_argument("--queues", type=int, help=f"queues per queue manager, all kinds (default {ScenarioConfig.queues})")
    g.add_argument("--shared-queues", type=int, help="shared queues (default: a fifth of --queues)")
    g.add_argument("--intervals", type=int, help=f"statistics intervals (default {ScenarioConfig.intervals})")
    g.add_argument(
        "--interval-seconds", type=int, help=f"STATIME in seconds (default {ScenarioConfig.interval_seconds})"
    )
    g.add_argument("--start", help=f"first interval start, UTC ISO 8601 (default {ScenarioConfig.start})")
    g.add_argument(
        "--qsg", help=f"queue-sharing group name (default {ScenarioConfig.qsg}; '' = standalone queue managers)"
    )
    g.add_argument("--qmgr-prefix", help=f"queue manager names <prefix>01.. (default {ScenarioConfig.qmgr_prefix})")
    g.add_argument("--versions", help=f"MQ versions given to the queue managers in turn (default {','.join(VERSIONS)})")
    g.add_argument(
        "--max-record-bytes",
        type=int,
        help="longest logical record; above 32,760 records are spanned over several segments",
    )
    g.add_argument("--no-partial-records", action="store_true", help="leave out the CF-access partial-record event")
    g.add_argument(
        "--inject",
        action="append",
        metavar="RULE[@QMGR[:OBJECT]][#K],...",
        help=f"drive the workload into a rule's pathology: {', '.join(SUPPORTED_RULES)}",
    )
    g.add_argument(
        "--violate",
        action="append",
        metavar="CHECK[@QMGR[:OBJECT]][#K],...",
        help=f"write records that break an invariant: {', '.join(SUPPORTED_CHECKS)}",
    )
    g.add_argument("--corrupt", action="append", metavar="KIND,...", help=f"damage the file: {', '.join(CORRUPTIONS)}")
    g.add_argument(
        "--framing",
        choices=("rdw", "bdw", "nordw"),
        default="rdw",
        help="descriptor words of the written file: rdw (VBS as dumped), bdw (with block words), nordw (none)",
    )
    g.add_argument("--block-size", type=int, default=MAX_BLOCK, help="VBS block size (RDW segmentation and BDW blocks)")
    g.add_argument(
        "--events",
        action="store_true",
        help="also write the queue depth event messages the day implies, as dmpmqmsg dumps "
        "FILE.<QMGR>.perfm.dmp (+ FILE.events.manifest.json)",
    )
    g.add_argument(
        "--idle-shared",
        metavar="QMGR,...",
        help="QSG members that neither put to nor get from the group's last shared queue "
        "(their event messages for it are null events)",
    )
    g.add_argument(
        "--acctq-off",
        metavar="QMGR:QUEUE,...",
        help="queues with ACCTQ(OFF): class 3 accounting (SMF 116) writes no WQ block for them",
    )
    g.add_argument(
        "--class3-off",
        metavar="QMGR#K,...",
        help="intervals outside the class 3 accounting sample windows: no SMF 116 subtype 1 or 2 record",
    )
    g.add_argument(
        "--perfmev-disabled",
        metavar="QMGR,...",
        help="queue managers with PERFMEV(DISABLED) for --events (default: the last of three or more; '' for none)",
    )
    g.set_defaults(func=_generate)


def config_from_args(args: argparse.Namespace) -> ScenarioConfig:
    overrides = {
        key: getattr(args, attr)
        for key, attr in (
            ("seed", "seed"),
            ("qmgrs", "qmgrs"),
            ("lpars", "lpars"),
            ("queues", "queues"),
            ("shared_queues", "shared_queues"),
            ("intervals", "intervals"),
            ("interval_seconds", "interval_seconds"),
            ("start", "start"),
            ("qsg", "qsg"),
            ("qmgr_prefix", "qmgr_prefix"),
            ("max_record_bytes", "max_record_bytes"),
        )
        if getattr(args, attr) is not None
    }
    if args.versions:
        overrides["versions"] = tuple(v for v in args.versions.split(",") if v.strip())
    if getattr(args, "idle_shared", None):
        overrides["idle_shared"] = tuple(q.strip().upper() for q in args.idle_shared.split(",") if q.strip())
    for option in ("acctq_off", "class3_off"):
        if getattr(args, option, None):
            overrides[option] = tuple(spec.strip() for spec in getattr(args, option).split(",") if spec.strip())
    if args.no_partial_records:
        overrides["partial_records"] = False
    if getattr(args, "qmgr", None):
        overrides["estate"] = tuple(QmgrPlan.parse(spec) for value in args.qmgr for spec in value.split(","))
    overrides["inject"] = parse_targets(args.inject, SUPPORTED_RULES, "rule")
    overrides["violate"] = parse_targets(args.violate, SUPPORTED_CHECKS, "check")
    if args.preset:
        return ScenarioConfig.preset(args.preset, **overrides)
    if "lpars" not in overrides and "qmgrs" in overrides:
        overrides["lpars"] = min(ScenarioConfig.lpars, overrides["qmgrs"])
    return ScenarioConfig(**overrides)


def _generate(args: argparse.Namespace) -> int:
    corrupt = [k.strip() for v in args.corrupt or () for k in v.split(",") if k.strip()]
    bad = [k for k in corrupt if k not in CORRUPTIONS]
    try:
        if bad:
            raise ValueError(f"unknown corruption {bad[0]!r}; use {', '.join(CORRUPTIONS)}")
        config = config_from_args(args)
        scenario = plan_scenario(config)
        manifest = write_scenario(scenario, args.out, args.framing, corrupt, args.block_size)
        events = None
        if args.events:
            from .events import write_events

            disabled = None if args.perfmev_disabled is None else [q for q in args.perfmev_disabled.split(",") if q]
            events = write_events(scenario, args.out, disabled)
    except (ValueError, PlanError, OSError) as e:
        print(f"mqsmf generate: {e}", file=sys.stderr)
        return 2
    f = manifest["file"]
    print(
        f"{args.out}: {f['size']:,} bytes, {f['logical_records']:,} records ({f['spanned_records']:,} spanned), "
        f"framing {f['framing']}"
    )
    print("  instances: " + ", ".join(f"{k} {v:,}" for k, v in manifest["counts"]["instances"].items()))
    for inj in manifest["injected"]:
        print(
            f"  injected {inj['rule_id']} ({inj['severity']}) on {inj['qmgr']} {inj['object_type']} "
            f"{inj['object_name']} at {inj['interval_start']}"
        )
    for v in manifest["violations"]:
        print(f"  violated {v['check']} on {v['qmgr']} {v.get('object_name', '')} at {v['interval_start']}")
    for c in manifest["corruptions"]:
        print(f"  corrupted ({c['kind']}) at byte {c['offset']}: {c['change']}")
    print(f"  manifest: {args.out}.manifest.json")
    if events is not None:
        print(
            f"  events: {len(events['events']):,} messages ({len(events['groups']):,} shared-queue groups) in "
            f"{', '.join(events['files'].values()) or 'no file'}; PERFMEV(DISABLED): "
            f"{', '.join(q for q, v in events['perfmev'].items() if v == 'DISABLED') or 'none'}"
        )
        print(f"  events manifest: {args.out}.events.manifest.json")
    return 0
