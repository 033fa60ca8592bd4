-- Each queue's state carried from one statistics interval to the next, for the rules that judge a
-- queue over consecutive intervals (MP16 Q02, Q03, Q10): whether the interval follows the queue's
-- previous one (aligned), the previous depth, whether the depth rose with more messages in than out,
-- how many consecutive intervals it has done so, how many consecutive intervals had uncommitted
-- changes, and the queue's last known average message size (QQSTMSAV is 0 when nothing was put in
-- the interval: the newest non-zero average within var queue_state_lookback_days days).
-- Incremental (insert_overwrite by interval_date): a run recomputes every date from the first one
-- the loads changed (macro first_changed_interval_date), each queue starting from its last row
-- before that date (looked for within the same lookback), so it equals a full build while costing
-- the new days only.
-- Grain: one row per queue manager x queue x statistics interval.
{{ config(
    materialized='incremental',
    incremental_strategy='insert_overwrite',
    partition_by=['interval_date'],
    on_schema_change='fail',
) }}
{%- set lookback_days = var('queue_state_lookback_days') | int %}
{%- set first_date = first_changed_interval_date('qqst') %}

with

queue_stats as (
    select
        queue_stats_key,
        qmgr_name,
        queue_name,
        interval_start_at,
        aligned_interval_start_at,
        aligned_interval_end_at,
        is_shared,
        depth_current,
        msgs_in,
        msgs_out,
        has_uncommitted_changes,
        nullif(msg_size_avg_bytes, 0) as msg_size_avg_bytes,
        loaded_at,
        interval_date
    from {{ ref('fct_queue_stats') }}
    {%- if is_incremental() %}
        where interval_date >= {{ "date '" ~ first_date ~ "'" if first_date else 'null' }}
    {%- endif %}
),

-- Incremental runs: each queue's last row before the first date recomputed (none on a full build).
carried as (
    {%- if is_incremental() and first_date %}
        select
            qmgr_name,
            queue_name,
            max_by(
                struct(
                    aligned_interval_end_at,
                    depth_current,
                    has_uncommitted_changes,
                    is_rising,
                    consecutive_rising_intervals,
                    consecutive_uncommitted_intervals,
                    known_msg_size_bytes,
                    known_msg_size_at
                ),
                interval_start_at
            ) as last_row
        from {{ this }}
        where
            interval_date < date '{{ first_date }}'
            and interval_date >= date_sub(date '{{ first_date }}', {{ lookback_days }})
        group by qmgr_name, queue_name
    {%- else %}
        select
            cast(null as string) as qmgr_name,
            cast(null as string) as queue_name,
            cast(null as struct<
                aligned_interval_end_at: timestamp, depth_current: int, has_uncommitted_changes: boolean,
                is_rising: boolean, consecutive_rising_intervals: int, consecutive_uncommitted_intervals: int,
                known_msg_size_bytes: double, known_msg_size_at: timestamp
            >) as last_row
        where false
    {%- endif %}
),

previous as (
    select
        queue_stats.*,
        carried.last_row.is_rising as carried_is_rising,
        carried.last_row.consecutive_rising_intervals as carried_rising_intervals,
        carried.last_row.consecutive_uncommitted_intervals as carried_uncommitted_intervals,
        carried.last_row.known_msg_size_bytes as carried_msg_size_bytes,
        carried.last_row.known_msg_size_at as carried_msg_size_at,
        -- The queue's previous row: the one before in this run, else (first row) the carried one.
        case
            when row_number() over queue_history = 1 then carried.last_row.aligned_interval_end_at
            else lag(queue_stats.aligned_interval_end_at) over queue_history
        end as previous_aligned_end_at,
        case
            when row_number() over queue_history = 1 then carried.last_row.depth_current
            else lag(queue_stats.depth_current) over queue_history
        end as previous_depth,
        case
            when row_number() over queue_history = 1 then carried.last_row.has_uncommitted_changes
            else lag(queue_stats.has_uncommitted_changes) over queue_history
        end as previous_uncommitted,
        last_value(queue_stats.msg_size_avg_bytes, true) over recent_days as recent_msg_size_bytes,
        last_value(
            case when queue_stats.msg_size_avg_bytes is not null then queue_stats.interval_start_at end, true
        ) over recent_days as recent_msg_size_at
    from queue_stats
    left join carried on queue_stats.qmgr_name = carried.qmgr_name and queue_stats.queue_name = carried.queue_name
    window
        queue_history as (
            partition by queue_stats.qmgr_name, queue_stats.queue_name order by queue_stats.interval_start_at
        ),
        recent_days as (
            partition by queue_stats.qmgr_name, queue_stats.queue_name order by queue_stats.interval_start_at
            range between interval {{ lookback_days }} days preceding and current row
        )
),

flags as (
    select
        *,
        coalesce(previous_aligned_end_at = aligned_interval_start_at, false) as follows_previous,
        -- Q03: a private queue with the 9.3.3 counters grew with more messages in than out.
        coalesce(
            previous_aligned_end_at = aligned_interval_start_at
            and not is_shared
            and msgs_in is not null
            and depth_current > previous_depth
            and msgs_in > msgs_out,
            false
        ) as is_rising
    from previous
),

breaks as (
    select
        *,
        row_number() over queue_history as queue_row,
        -- A run goes on while each interval follows the previous one with the condition still true.
        not(
            is_rising
            and coalesce(
                case
                    when row_number() over queue_history = 1 then carried_is_rising
                    else lag(is_rising) over queue_history
                end,
                false
            )
        ) as breaks_rising_run,
        not(
            coalesce(has_uncommitted_changes, false)
            and coalesce(previous_uncommitted, false)
            and follows_previous
        ) as breaks_uncommitted_run
    from flags
    window queue_history as (partition by qmgr_name, queue_name order by interval_start_at)
),

runs as (
    select
        *,
        -- Run 0 is the one the carried row was in (the first rows continuing it).
        sum(case when breaks_rising_run then 1 else 0 end) over queue_history as rising_run_id,
        sum(case when breaks_uncommitted_run then 1 else 0 end) over queue_history as uncommitted_run_id,
        -- Where the current runs started (NULL in run 0): a row's place in its run without sorting
        -- the rows again by run.
        max(case when breaks_rising_run then queue_row end) over queue_history as rising_run_start_row,
        max(case when breaks_uncommitted_run then queue_row end) over queue_history as uncommitted_run_start_row
    from breaks
    window queue_history as (
        partition by qmgr_name, queue_name order by interval_start_at
        rows between unbounded preceding and current row
    )
),

final as (
    select
        queue_stats_key,
        qmgr_name,
        queue_name,
        interval_start_at,
        aligned_interval_start_at,
        aligned_interval_end_at,
        depth_current,
        has_uncommitted_changes,
        follows_previous,
        previous_depth,
        is_rising,
        case
            when is_rising
                then cast(
                    queue_row - coalesce(rising_run_start_row - 1, 0)
                    + case when rising_run_id = 0 then coalesce(carried_rising_intervals, 0) else 0 end
                    as int
                )
        end as consecutive_rising_intervals,
        case
            when coalesce(has_uncommitted_changes, false)
                then cast(
                    queue_row - coalesce(uncommitted_run_start_row - 1, 0)
                    + case
                        when uncommitted_run_id = 0 then coalesce(carried_uncommitted_intervals, 0)
                        else 0
                    end
                    as int
                )
        end as consecutive_uncommitted_intervals,
        -- The newest non-zero average within the lookback: from this run's rows, else the carried one.
        case
            when recent_msg_size_bytes is not null then cast(recent_msg_size_bytes as double)
            when carried_msg_size_at >= interval_start_at - interval {{ lookback_days }} days
                then carried_msg_size_bytes
        end as known_msg_size_bytes,
        case
            when recent_msg_size_bytes is not null then recent_msg_size_at
            when carried_msg_size_at >= interval_start_at - interval {{ lookback_days }} days
                then carried_msg_size_at
        end as known_msg_size_at,
        loaded_at,
        interval_date
    from runs
)

select * from final
