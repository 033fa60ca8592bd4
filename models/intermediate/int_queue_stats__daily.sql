-- Each queue's statistics summed up per UTC day: its latest attributes that day (by interval end),
-- first start, last end and number of intervals. dim_queue aggregates these days instead of every
-- interval of history (a day's queue statistics are 48 rows per queue at STATIME 30).
-- Incremental (insert_overwrite by interval_date): a run recomputes the dates the loads changed.
-- Grain: one row per queue manager x queue x UTC day (interval_date).
{{ config(
    materialized='incremental',
    incremental_strategy='insert_overwrite',
    partition_by=['interval_date'],
    on_schema_change='fail',
) }}

with

queue_stats as (
    {{ select_changed_interval_dates(ref('int_queue_stats__partial_rules_applied')) }}
),

final as (
    select
        queue_key,
        qmgr_name,
        queue_name,
        max_by(is_shared, interval_end_at) as is_shared,
        max_by(qsg_name, interval_end_at) as qsg_name,
        max_by(cf_structure_name, interval_end_at) as cf_structure_name,
        max_by(page_set_id, interval_end_at) as page_set_id,
        max_by(buffer_pool_id, interval_end_at) as buffer_pool_id,
        max_by(mq_version, interval_end_at) as mq_version,
        min(interval_start_at) as first_interval_start_at,
        max(interval_end_at) as last_interval_end_at,
        count(*) as statistics_intervals,
        max(loaded_at) as loaded_at,
        interval_date
    from queue_stats
    group by queue_key, qmgr_name, queue_name, interval_date
)

select * from final
