-- Buffer pool statistics (QPST) with the derived metrics of MP16 ("Definition of buffer pool
-- statistics" (ch. 5, p. 166), "Interpretation of MQ statistics" (ch. 5, p. 167)).
-- Pages are 4 KB (MB = pages / 256); T = the statistics interval in seconds.
-- Grain: one row per queue manager x buffer pool x statistics interval.
{#- QPSTCBSL holds X'7FFFFFFF' when the interval's lowest number of stealable buffers was never set
    (seeds/data_pitfalls.csv qpst_lowest_stealable_never_set): no count, so NULL here and in every
    metric derived from it (the raw table keeps the value as decoded). #}
{%- set lowest_never_set = 2147483647 %}

with

buffer_pools as (
    select
        *,
        nullif(stealable_buffers_low, {{ lowest_never_set }}) as lowest_stealable_buffers
    from {{ ref('stg_smf__qpst') }}
),

qmgr_qsg as (
    select * from {{ ref('int_smf__qmgr_qsg') }}
),

derived as (
    select
        buffer_pools.qpst_key as buffer_pool_stats_key,
        {{ surrogate_key(['buffer_pools.qmgr_name', 'buffer_pools.buffer_pool_id']) }} as buffer_pool_key,
        buffer_pools.qmgr_name,
        qmgr_qsg.qsg_name,
        buffer_pools.buffer_pool_id,
        buffer_pools.system_id,
        buffer_pools.mq_version,
        buffer_pools.smf_subtype,
        {{ interval_columns('buffer_pools') }},
        buffer_pools.is_above_bar,
        buffer_pools.is_page_fixed,
        buffer_pools.buffers,
        buffer_pools.lowest_stealable_buffers as stealable_buffers_low,
        buffer_pools.stealable_buffers_current,
        buffer_pools.get_page_existing_count as get_pages,
        buffer_pools.get_page_new_count as get_new_pages,
        buffer_pools.page_read_count as pages_read,
        buffer_pools.set_write_count as set_writes,
        buffer_pools.page_write_count as pages_written,
        buffer_pools.write_io_count as write_ios,
        buffer_pools.immediate_write_count as immediate_writes,
        buffer_pools.deferred_write_threshold_count as dwt_reached,
        buffer_pools.sync_write_threshold_count as dmc_reached,
        buffer_pools.steal_count as steals,
        buffer_pools.steal_contention_count as steal_contentions,
        buffer_pools.no_stealable_buffer_count as short_on_storage,
        buffer_pools.buffers / 256 as bp_size_mb,
        100 * {{ safe_divide('buffer_pools.lowest_stealable_buffers', 'buffer_pools.buffers') }} as lowest_free_pct,
        100 * {{ safe_divide('buffer_pools.stealable_buffers_current', 'buffer_pools.buffers') }} as end_free_pct,
        100 - 100 * {{ safe_divide('buffer_pools.lowest_stealable_buffers', 'buffer_pools.buffers') }}
            as peak_used_pct,
        buffer_pools.lowest_stealable_buffers - 0.15 * buffer_pools.buffers as headroom_to_dwp_pages,
        {{ safe_divide('buffer_pools.get_page_existing_count', 'buffer_pools.interval_seconds') }}
            as get_pages_per_second,
        {{ safe_divide('buffer_pools.get_page_new_count', 'buffer_pools.interval_seconds') }}
            as get_new_pages_per_second,
        {{ safe_divide('buffer_pools.page_read_count', 'buffer_pools.get_page_existing_count') }} as miss_ratio,
        1 - {{ safe_divide('buffer_pools.page_read_count', 'buffer_pools.get_page_existing_count') }} as hit_ratio,
        {{ safe_divide('buffer_pools.page_read_count', 'buffer_pools.interval_seconds') }} as pages_read_per_second,
        {{ safe_divide('buffer_pools.page_write_count', 'buffer_pools.interval_seconds') }}
            as pages_written_per_second,
        {{ safe_divide('buffer_pools.write_io_count', 'buffer_pools.interval_seconds') }} as write_ios_per_second,
        {{ safe_divide('buffer_pools.page_write_count', 'buffer_pools.write_io_count') }} as pages_per_write_io,
        {{ safe_divide(
            'cast(buffer_pools.page_read_count as bigint) + buffer_pools.write_io_count', 'buffer_pools.interval_seconds'
        ) }} as page_set_ios_per_second,
        {{ safe_divide('buffer_pools.immediate_write_count', 'buffer_pools.write_io_count') }} as sync_write_share,
        {{ safe_divide('buffer_pools.steal_count', 'buffer_pools.interval_seconds') }} as steals_per_second,
        {{ safe_divide('buffer_pools.steal_contention_count', 'buffer_pools.steal_count') }}
            as steal_contention_ratio,
        {{ safe_divide('buffer_pools.set_write_count', 'buffer_pools.get_page_existing_count') }}
            as update_intensity,
        3600 * {{ safe_divide('buffer_pools.deferred_write_threshold_count', 'buffer_pools.interval_seconds') }}
            as dwp_starts_per_hour,
        buffer_pools.loaded_at
    from buffer_pools
    left join qmgr_qsg on buffer_pools.qmgr_name = qmgr_qsg.qmgr_name
)

select * from derived
