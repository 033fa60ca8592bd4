"""Log manager statistics (QJST): log records and bytes from the persistent traffic, checkpoints
when the records reach LOGLOAD."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..config import US_PER_S
from ..topology import QueueManager

if TYPE_CHECKING:
    from ..state import Effects, QmgrState

# Log records and bytes per persistent MQ call (MP16-style averages: "How can we estimate the required
# log data rate for a system?", ch. 1).
LOG_RECORDS_PER_PUT, LOG_RECORDS_PER_GET = 8, 6
LOG_BYTES_PER_PUT, LOG_BYTES_PER_GET = 1300, 500
LOG_BASELINE_RECORDS_PER_S, LOG_BASELINE_BYTES_PER_S = 30, 20_000


def log_statistics(
    k: int,
    qm: QueueManager,
    queue_columns: dict,
    rng: np.random.Generator,
    start: int,
    seconds: int,
    state: QmgrState,
    effects: Effects,
) -> dict:
    """QJST of one interval. Carries the LOGLOAD count and the active logs in ``state`` and
    records LOG03's ground truth in ``effects.log_truth``."""
    queue_count = len(qm.queues)
    persistent_puts = int((queue_columns["QQSTPPT"][:queue_count] + queue_columns["QQSTPP1"][:queue_count]).sum())
    persistent_gets = int(queue_columns["QQSTPDG"][:queue_count].sum())
    persistent_bytes = int((queue_columns["QQSTPPB"][:queue_count] + queue_columns["QQSTP1B"][:queue_count]).sum())
    records = (
        LOG_RECORDS_PER_PUT * persistent_puts
        + LOG_RECORDS_PER_GET * persistent_gets
        + LOG_BASELINE_RECORDS_PER_S * seconds
    )
    log_bytes = (
        persistent_bytes
        + LOG_BYTES_PER_PUT * persistent_puts
        + LOG_BYTES_PER_GET * persistent_gets
        + LOG_BASELINE_BYTES_PER_S * seconds
    )
    before = state.log_records_total
    after = before + records
    checkpoints = after // qm.loglimit - before // qm.loglimit
    # Ground truth for LOG03: the LOGLOAD counter (records since the previous checkpoint, reset
    # to zero at each one) at this interval's checkpoints: LOGLOAD itself when taken by count.
    per_checkpoint = float(qm.loglimit)
    forced = effects.checkpoint.get((k, qm.index))
    if forced is not None and checkpoints < forced:
        checkpoints = forced
        per_checkpoint = (before % qm.loglimit + records) / forced
        after = 0  # a forced checkpoint (log switch, SET LOG) restarts the LOGLOAD count
    most = effects.checkpoint_max.get((k, qm.index))
    if most is not None and checkpoints > most:
        checkpoints = most
        after = after % qm.loglimit
    state.log_records_total = after
    state.new_logs += int(checkpoints)
    if checkpoints:
        effects.log_truth[(k, qm.index)] = per_checkpoint
    pages = -(-log_bytes // 4096)
    control_intervals_written = int(pages * rng.uniform(1.2, 1.4))
    log_ios = max(1, control_intervals_written // 4)
    fields = {}
    waits_for_write = int(records * 0.4)
    forced_writes = max(1, persistent_puts // 10)
    fields["QJSTWRW"], fields["QJSTWRF"] = waits_for_write, forced_writes
    fields["QJSTWRNW"] = records - waits_for_write - forced_writes
    fields["QJSTWTB"] = 0
    fields["QJSTRBUF"] = (
        int(queue_columns["QQSTRBPT"][:queue_count].sum() + queue_columns["QQSTRBGT"][:queue_count].sum()) * 2
    )
    fields["QJSTRACT"] = int(rng.integers(0, 20))
    fields["QJSTRARH"] = fields["QJSTTVC"] = 0
    fields["QJSTBSDS"] = 4 + 2 * int(checkpoints)
    fields["QJSTBFFL"] = pages
    fields["QJSTBFWR"] = max(1, records // 3)
    fields["QJSTALR"] = 0
    fields["QJSTALW"] = 2 * int(checkpoints)
    fields["QJSTCIOF"] = pages if checkpoints else 0
    fields["QJSTLLCP"] = int(checkpoints)
    fields["QJSTWUR"] = fields["QJSTLAMA"] = fields["QJSTLAMS"] = 0
    fields["QJSTLSUS"] = int(forced_writes * 0.9)
    fields["QJSTLOGW"] = log_ios
    fields["QJSTCIWR"] = control_intervals_written
    fields["QJSTSERW"] = int(log_ios * rng.uniform(0.2, 0.35))
    fields["QJSTTHRW"] = int(log_ios * 0.05)
    fields["QJSTBPAG"] = 0
    copies = 2 if qm.dual_logging else 1
    single_share = rng.uniform(0.55, 0.7)
    interval_us = seconds * US_PER_S
    for copy in range(2):
        count_single = int(log_ios * single_share) if copy < copies else 0
        count_multi = (log_ios - int(log_ios * single_share)) if copy < copies else 0
        slow = 1.0 if copy == 0 else rng.uniform(1.0, 1.1)
        for kind, count, control_intervals, avg_us in (
            (0, count_single, count_single, 220 * slow),
            (1, count_multi, max(count_multi, control_intervals_written - count_single), 780 * slow),
        ):
            prefix = f"QJSTIO_{copy}_{kind}_"
            total_us = int(count * avg_us)
            data_set = f"CSQOAL{copy + 1}{k % 3 + 1}" if count else ""
            fields[prefix + "QJSTIOCOUNT"] = count
            fields[prefix + "QJSTIOCI"] = control_intervals if count else 0
            fields[prefix + "QJSTIOTOTIO"], fields[prefix + "QJSTIOTOTSUS"] = total_us, int(total_us * 1.15)
            fields[prefix + "QJSTIOMAXIO"] = int(avg_us * rng.uniform(3, 8)) if count else 0
            fields[prefix + "QJSTIOMAXIOT"] = int(start + rng.uniform(0, 1) * seconds * US_PER_S) if count else 0
            fields[prefix + "QJSTIOMAXIOL"] = data_set
            fields[prefix + "QJSTIOMAXSUS"] = int(avg_us * rng.uniform(4, 10)) if count else 0
            fields[prefix + "QJSTIOMAXSUST"] = int(start + rng.uniform(0, 1) * seconds * US_PER_S) if count else 0
            fields[prefix + "QJSTIOMAXSUSL"] = data_set
    fields["QJSTSLPTU"] = int(interval_us * rng.uniform(0.6, 0.9))
    fields["QJSTIOSQU_0"] = int(fields["QJSTIO_0_0_QJSTIOCOUNT"] * 220**2 + fields["QJSTIO_0_1_QJSTIOCOUNT"] * 780**2)
    fields["QJSTIOSQU_1"] = int(fields["QJSTIO_1_0_QJSTIOCOUNT"] * 230**2 + fields["QJSTIO_1_1_QJSTIOCOUNT"] * 800**2)
    fields["QJSTCP1N"] = fields["QJSTCP2N"] = state.new_logs
    fields["QJSTHWC"] = fields["QJSTHWE"] = 0
    fields["QJSTENCR"] = 0
    for name, value in effects.log.get((k, qm.index), {}).items():
        fields[name] = value
    return {key: np.array([v], dtype=object if isinstance(v, str) else np.int64) for key, v in fields.items()}
