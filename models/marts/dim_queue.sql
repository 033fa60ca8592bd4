-- Queues as each queue manager reports them (a shared queue appears once per queue manager that
-- reports it), with their latest definition-related attributes.
-- Grain: one row per queue manager x queue.

with

queue_stats as (
    select * from {{ ref('int_queue_stats__partial_rules_applied') }}
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
        count(*) as statistics_intervals
    from queue_stats
    group by queue_key, qmgr_name, queue_name
)

select * from final
