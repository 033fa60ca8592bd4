-- Message manager statistics (QMST: API calls of the whole queue manager) with the rates and ratios
-- of MP16 ("Application level performance considerations" (ch. 6, p. 180)).
-- Grain: one row per queue manager x statistics interval.

with

message_manager as (
    select * from {{ ref('stg_smf__qmst') }}
),

qmgr_qsg as (
    select * from {{ ref('int_smf__qmgr_qsg') }}
),

derived as (
    select
        message_manager.qmst_key as message_manager_stats_key,
        message_manager.qmgr_name,
        qmgr_qsg.qsg_name,
        message_manager.system_id,
        message_manager.mq_version,
        message_manager.structure_length,
        {{ interval_columns('message_manager') }},
        message_manager.open_count as opens,
        message_manager.close_count as closes,
        message_manager.get_count as gets,
        message_manager.put_count as puts,
        message_manager.put1_count as put1s,
        message_manager.inquire_count as inquires,
        message_manager.set_count as set_calls,
        message_manager.subscribe_count as subscribes,
        message_manager.publish_count as publishes,
        message_manager.callback_count as callbacks,
        message_manager.control_count as controls,
        message_manager.status_count as stat_calls,
        message_manager.close_all_handles_count as close_all_handles,
        message_manager.persistent_put_count as persistent_puts,
        message_manager.nonpersistent_put_count as nonpersistent_puts,
        message_manager.persistent_put_bytes,
        message_manager.nonpersistent_put_bytes,
        {{ safe_divide('message_manager.put_count', 'message_manager.interval_seconds') }} as puts_per_second,
        {{ safe_divide('message_manager.put1_count', 'message_manager.interval_seconds') }} as put1s_per_second,
        {{ safe_divide('message_manager.get_count', 'message_manager.interval_seconds') }} as gets_per_second,
        {{ safe_divide('message_manager.open_count', 'message_manager.interval_seconds') }} as opens_per_second,
        {{ safe_divide('message_manager.close_count', 'message_manager.interval_seconds') }} as closes_per_second,
        {{ safe_divide(
            'message_manager.open_count', 'cast(message_manager.put_count as bigint) + message_manager.get_count'
        ) }} as opens_per_operation,
        {{ safe_divide(
            'message_manager.persistent_put_count',
            'message_manager.persistent_put_count + message_manager.nonpersistent_put_count'
        ) }} as persistent_put_share,
        {{ safe_divide('message_manager.persistent_put_bytes', 'message_manager.persistent_put_count') }}
            as avg_persistent_put_bytes,
        {{ safe_divide('message_manager.nonpersistent_put_bytes', 'message_manager.nonpersistent_put_count') }}
            as avg_nonpersistent_put_bytes,
        message_manager.loaded_at
    from message_manager
    left join qmgr_qsg on message_manager.qmgr_name = qmgr_qsg.qmgr_name
)

select * from derived
