-- Buffer pool statistics with MP16's derived metrics (free %, page read/write rates, steals, DWP).
-- Grain: one row per queue manager x buffer pool x statistics interval.

with

buffer_pool_stats as (
    {{ select_changed_interval_dates(ref('int_buffer_pool_stats__derived')) }}
),

final as (
    select
        buffer_pool_stats_key,
        buffer_pool_key,
        qmgr_name,
        qsg_name,
        buffer_pool_id,
        {{ qmgr_interval_columns() }},
        smf_subtype,
        is_above_bar,
        is_page_fixed,
        buffers,
        bp_size_mb,
        stealable_buffers_low,
        stealable_buffers_current,
        lowest_free_pct,
        end_free_pct,
        peak_used_pct,
        headroom_to_dwp_pages,
        get_pages,
        get_new_pages,
        pages_read,
        set_writes,
        pages_written,
        write_ios,
        immediate_writes,
        dwt_reached,
        dmc_reached,
        steals,
        steal_contentions,
        short_on_storage,
        get_pages_per_second,
        get_new_pages_per_second,
        miss_ratio,
        hit_ratio,
        pages_read_per_second,
        pages_written_per_second,
        write_ios_per_second,
        pages_per_write_io,
        page_set_ios_per_second,
        sync_write_share,
        steals_per_second,
        steal_contention_ratio,
        update_intensity,
        dwp_starts_per_hour,
        loaded_at,
        interval_date
    from buffer_pool_stats
)

select * from final
