-- RESET QSTATS semantics: MSGSIN = MQPUT + MQPUT1 and MSGSOUT = destructive MQGET, and both are
-- NULL exactly when the record predates the counters (9.3.0 / 9.3.1). Returns violating rows.
-- Checked on the interval dates of the newest load (var test_scope 'all': every date).

select
    queue_stats_key,
    qmgr_name,
    queue_name,
    interval_start_at
from {{ ref('fct_queue_stats') }}
where
    {{ recently_loaded_dates_condition() }}
    and (
        not (msgs_in <=> puts + put1s)
        or not (msgs_out <=> gets)
        or (msgs_in is null) != (structure_length < 552)
    )
