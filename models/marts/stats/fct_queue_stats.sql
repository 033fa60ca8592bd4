-- Queue statistics per queue manager: activity, RESET QSTATS measures, depths, age, handles.
-- Incremental: only the interval dates touched by newly loaded rows are recomputed and replaced.
-- Grain: one row per queue manager x queue x statistics interval.

with

queue_stats as (
    select * from {{ ref('int_queue_stats__partial_rules_applied') }}
    {%- if is_incremental() %}
        where interval_date in ({{ changed_interval_dates(ref('int_queue_stats__partial_rules_applied')) }})
    {%- endif %}
),

final as (
    select
        queue_stats_key,
        queue_key,
        qmgr_name,
        qsg_name,
        queue_name,
        interval_start_at,
        interval_end_at,
        interval_seconds,
        aligned_interval_start_at,
        aligned_interval_end_at,
        system_id,
        mq_version,
        structure_length,
        is_shared,
        is_partial,
        is_depth_untrusted,
        has_uncommitted_changes,
        page_set_id,
        buffer_pool_id,
        cf_structure_name,
        puts,
        put1s,
        msgs_in,
        msgs_out,
        gets,
        browses,
        net_msgs_in,
        persistent_msgs_in,
        nonpersistent_msgs_in,
        persistent_gets,
        nonpersistent_gets,
        put_bytes,
        put1_bytes,
        msgs_in_bytes,
        get_bytes,
        browse_bytes,
        failed_puts,
        failed_put1s,
        failed_gets,
        failed_browses,
        gets_no_msg_available,
        gets_truncated_failed,
        hard_failed_gets,
        fast_puts,
        expired_msgs,
        rolled_back_puts,
        rolled_back_gets,
        msg_size_min_bytes,
        msg_size_max_bytes,
        msg_size_avg_bytes,
        msgs_in_per_second,
        msgs_out_per_second,
        browses_per_second,
        msgs_in_bytes_per_second,
        get_bytes_per_second,
        failures_per_second,
        gets_no_msg_available_per_second,
        gets_truncated_failed_per_second,
        depth_current,
        depth_high,
        depth_low,
        oldest_msg_age_seconds,
        qtime_short_term_us,
        qtime_long_term_us,
        last_put_at,
        last_get_at,
        opens,
        closes,
        input_handles_open,
        output_handles_open,
        input_handles_high,
        input_handles_low,
        output_handles_high,
        output_handles_low,
        loaded_at,
        interval_date
    from queue_stats
)

select * from final
