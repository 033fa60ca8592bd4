-- Data manager statistics: message and object requests, and how many gets had to read the page set.
-- Grain: one row per queue manager x statistics interval.

with

data_manager_stats as (
    {{ select_changed_interval_dates(ref('int_data_manager_stats__derived')) }}
),

final as (
    select
        data_manager_stats_key,
        qmgr_name,
        qsg_name,
        {{ qmgr_interval_columns() }},
        msg_gets,
        msg_puts,
        browses_with_lock,
        object_creates,
        object_puts,
        object_deletes,
        object_gets,
        object_locates,
        msg_count_requests,
        storage_class_changes,
        lock_marked_msgs,
        delete_marked_msgs,
        enumerates,
        gets_from_page_set,
        gets_from_buffer_pool,
        msg_gets_per_second,
        msg_puts_per_second,
        disk_get_share,
        loaded_at,
        interval_date
    from data_manager_stats
)

select * from final
