-- Queues as each queue manager reports them (a shared queue appears once per queue manager that
-- reports it), with their latest definition-related attributes; from the queues' days
-- (int_queue_stats__daily), so a run reads a row per queue and day, not per interval.
-- Grain: one row per queue manager x queue.

with

queue_days as (
    select * from {{ ref('int_queue_stats__daily') }}
),

final as (
    select
        queue_key,
        qmgr_name,
        queue_name,
        max_by(is_shared, last_interval_end_at) as is_shared,
        max_by(qsg_name, last_interval_end_at) as qsg_name,
        max_by(cf_structure_name, last_interval_end_at) as cf_structure_name,
        max_by(page_set_id, last_interval_end_at) as page_set_id,
        max_by(buffer_pool_id, last_interval_end_at) as buffer_pool_id,
        max_by(mq_version, last_interval_end_at) as mq_version,
        min(first_interval_start_at) as first_interval_start_at,
        max(last_interval_end_at) as last_interval_end_at,
        sum(statistics_intervals) as statistics_intervals
    from queue_days
    group by queue_key, qmgr_name, queue_name
)

select * from final
