-- Data manager statistics (QIST: message and object requests to the page sets and buffer pools)
-- with the rates and the disk-get share of MP16 ("Introduction to the buffer manager and data
-- manager" (ch. 5, p. 162)).
-- Grain: one row per queue manager x statistics interval.

with

data_manager as (
    select * from {{ ref('stg_smf__qist') }}
),

qmgr_qsg as (
    select * from {{ ref('int_smf__qmgr_qsg') }}
),

derived as (
    select
        data_manager.qist_key as data_manager_stats_key,
        data_manager.qmgr_name,
        qmgr_qsg.qsg_name,
        data_manager.system_id,
        data_manager.mq_version,
        {{ interval_columns('data_manager') }},
        data_manager.msg_get_count as msg_gets,
        data_manager.msg_put_count as msg_puts,
        data_manager.browse_with_lock_count as browses_with_lock,
        data_manager.object_create_count as object_creates,
        data_manager.object_put_count as object_puts,
        data_manager.object_delete_count as object_deletes,
        data_manager.object_get_count as object_gets,
        data_manager.object_locate_count as object_locates,
        data_manager.msg_count_request_count as msg_count_requests,
        data_manager.storage_class_change_count as storage_class_changes,
        data_manager.lock_marked_msg_count as lock_marked_msgs,
        data_manager.delete_marked_msg_count as delete_marked_msgs,
        data_manager.enumerate_count as enumerates,
        data_manager.get_from_page_set_count as gets_from_page_set,
        data_manager.get_from_buffer_pool_count as gets_from_buffer_pool,
        {{ safe_divide('data_manager.msg_get_count', 'data_manager.interval_seconds') }} as msg_gets_per_second,
        {{ safe_divide('data_manager.msg_put_count', 'data_manager.interval_seconds') }} as msg_puts_per_second,
        {{ safe_divide(
            'data_manager.get_from_page_set_count',
            'cast(data_manager.get_from_page_set_count as bigint) + data_manager.get_from_buffer_pool_count'
        ) }} as disk_get_share,
        data_manager.loaded_at
    from data_manager
    left join qmgr_qsg on data_manager.qmgr_name = qmgr_qsg.qmgr_name
)

select * from derived
