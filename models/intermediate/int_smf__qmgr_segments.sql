{{ config(materialized='table') }}
-- Runs of contiguous statistics intervals of each queue manager ("segments"). An interval that does
-- not start where the queue manager's previous interval ended (aligned) starts a new segment: the
-- queue manager was restarted (statistics stop at shutdown and start again with the new address
-- space), or statistics are missing; the first interval in the data starts one too. MP16 expects
-- page set reads, and log reads, right after a restart: the advisories judge those rules outside a
-- segment's restart phase (macro mp16_restart_phase).
-- Grain: one row per queue manager x aligned statistics interval.

with

intervals as (
    select * from {{ ref('int_smf__qmgr_intervals') }}
),

starts as (
    select
        qmgr_name,
        aligned_interval_start_at,
        aligned_interval_end_at,
        interval_start_at,
        coalesce(
            lag(aligned_interval_end_at) over qmgr_history != aligned_interval_start_at, true
        ) as is_segment_start
    from intervals
    window qmgr_history as (partition by qmgr_name order by aligned_interval_end_at)
),

numbered as (
    select
        *,
        sum(cast(is_segment_start as int)) over (
            partition by qmgr_name order by aligned_interval_end_at rows between unbounded preceding and current row
        ) as segment_number
    from starts
),

final as (
    select
        qmgr_name,
        aligned_interval_end_at,
        aligned_interval_start_at,
        segment_number,
        is_segment_start,
        min(interval_start_at) over (partition by qmgr_name, segment_number) as segment_started_at
    from numbered
)

select * from final
