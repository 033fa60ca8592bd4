-- Buffer pools of each queue manager with their latest size and options, and how many queues
-- (by their latest QQSTBPID) use them.
-- Grain: one row per queue manager x buffer pool.

with

buffer_pool_stats as (
    select * from {{ ref('int_buffer_pool_stats__derived') }}
),

queues as (
    select * from {{ ref('dim_queue') }}
),

pools as (
    select
        buffer_pool_key,
        qmgr_name,
        buffer_pool_id,
        max_by(buffers, interval_end_at) as buffers,
        max_by(bp_size_mb, interval_end_at) as bp_size_mb,
        max_by(is_above_bar, interval_end_at) as is_above_bar,
        max_by(is_page_fixed, interval_end_at) as is_page_fixed,
        min(interval_start_at) as first_interval_start_at,
        max(interval_end_at) as last_interval_end_at,
        count(*) as statistics_intervals
    from buffer_pool_stats
    group by buffer_pool_key, qmgr_name, buffer_pool_id
),

queues_per_pool as (
    select
        qmgr_name,
        buffer_pool_id,
        count(*) as queues
    from queues
    where buffer_pool_id is not null
    group by qmgr_name, buffer_pool_id
),

final as (
    select
        pools.*,
        coalesce(queues_per_pool.queues, 0) as queues
    from pools
    left join queues_per_pool
        on pools.qmgr_name = queues_per_pool.qmgr_name and pools.buffer_pool_id = queues_per_pool.buffer_pool_id
)

select * from final
