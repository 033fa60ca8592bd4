-- Message manager statistics: the queue manager's MQI calls, rates and persistence mix.
-- Grain: one row per queue manager x statistics interval.

with

message_manager_stats as (
    {{ select_changed_interval_dates(ref('int_message_manager_stats__derived')) }}
),

final as (
    select
        message_manager_stats_key,
        qmgr_name,
        qsg_name,
        {{ qmgr_interval_columns() }},
        structure_length,
        opens,
        closes,
        gets,
        puts,
        put1s,
        inquires,
        set_calls,
        subscribes,
        publishes,
        callbacks,
        controls,
        stat_calls,
        close_all_handles,
        persistent_puts,
        nonpersistent_puts,
        persistent_put_bytes,
        nonpersistent_put_bytes,
        puts_per_second,
        put1s_per_second,
        gets_per_second,
        opens_per_second,
        closes_per_second,
        opens_per_operation,
        persistent_put_share,
        avg_persistent_put_bytes,
        avg_nonpersistent_put_bytes,
        loaded_at,
        interval_date
    from message_manager_stats
)

select * from final
