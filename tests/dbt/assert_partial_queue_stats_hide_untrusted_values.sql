-- IBM's QQST partial-record rules: in a partial record (QQSTPART) of a shared queue, the current
-- depth, the oldest message age and the uncommitted-changes flag cannot be trusted; in a partial
-- record of a private queue, the oldest message age cannot. Those values must be NULL, and nothing
-- else may be blanked. Checked on the interval dates of the newest load (var test_scope 'all': every
-- date). Returns violating rows.

select
    queue_stats_key,
    qmgr_name,
    queue_name,
    interval_start_at
from {{ ref('fct_queue_stats') }}
where
    {{ recently_loaded_dates_condition() }}
    and (
        (is_partial and is_shared and (depth_current is not null or has_uncommitted_changes is not null))
        or (is_partial and oldest_msg_age_seconds is not null)
        or (not (is_partial and is_shared) and depth_current is null)
        or is_depth_untrusted != (is_partial and is_shared)
    )
