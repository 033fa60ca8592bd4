-- Queue statistics (QQST) with the partial-record rules of IBM's QQST documentation applied, the
-- RESET QSTATS measures (MSGSIN = MQPUT + MQPUT1, MSGSOUT = destructive MQGET), per-second rates
-- and the aligned interval.
-- Partial records (QQSTPART: MQ could not read everything, e.g. after a CF structure failure):
--   shared queue:  QQSTDPTH and QQSTMAGE are written as zero and QQSTUNCM is never set -> all NULL;
--   private queue: QQSTMAGE is written as zero -> NULL; the depth is kept.
-- Grain: one row per queue manager x queue x statistics interval.

with

queue_stats as (
    select * from {{ ref('stg_smf__qqst') }}
),

qmgr_qsg as (
    select * from {{ ref('int_smf__qmgr_qsg') }}
),

rules_applied as (
    select
        queue_stats.qqst_key as queue_stats_key,
        {{ surrogate_key(['queue_stats.qmgr_name', 'queue_stats.queue_name']) }} as queue_key,
        queue_stats.qmgr_name,
        queue_stats.queue_name,
        -- A shared queue belongs to the QSG it names; a private one to its queue manager's QSG, if any
        -- (NULL for a standalone queue manager: a blank name in the MQ 10 header is no QSG).
        coalesce(
            nullif(trim(queue_stats.queue_qsg_name), ''), nullif(trim(queue_stats.qsg_name), ''), qmgr_qsg.qsg_name
        ) as qsg_name,
        queue_stats.system_id,
        queue_stats.mq_version,
        queue_stats.structure_length,
        {{ interval_columns('queue_stats') }},
        queue_stats.record_created_at,
        queue_stats.is_shared,
        queue_stats.is_partial,
        queue_stats.is_partial and queue_stats.is_shared as is_depth_untrusted,
        case when not (queue_stats.is_partial and queue_stats.is_shared) then queue_stats.has_uncommitted_changes end
            as has_uncommitted_changes,
        nullif(queue_stats.page_set_id, -1) as page_set_id,
        nullif(queue_stats.buffer_pool_id, -1) as buffer_pool_id,
        nullif(trim(queue_stats.cf_structure_name), '') as cf_structure_name,
        case when not (queue_stats.is_partial and queue_stats.is_shared) then queue_stats.depth_current end
            as depth_current,
        queue_stats.depth_high,
        queue_stats.depth_low,
        case when not queue_stats.is_partial then queue_stats.oldest_msg_age_seconds end as oldest_msg_age_seconds,
        queue_stats.qtime_short_term_us,
        queue_stats.qtime_long_term_us,
        queue_stats.last_put_at,
        queue_stats.last_get_at,
        queue_stats.put_count as puts,
        queue_stats.put1_count as put1s,
        queue_stats.put_count + queue_stats.put1_count as msgs_in,
        queue_stats.get_count as msgs_out,
        queue_stats.get_count as gets,
        queue_stats.browse_count as browses,
        queue_stats.put_persistent_count + queue_stats.put1_persistent_count as persistent_msgs_in,
        queue_stats.put_nonpersistent_count + queue_stats.put1_nonpersistent_count as nonpersistent_msgs_in,
        queue_stats.get_persistent_count as persistent_gets,
        queue_stats.get_nonpersistent_count as nonpersistent_gets,
        queue_stats.put_bytes,
        queue_stats.put1_bytes,
        queue_stats.put_bytes + queue_stats.put1_bytes as msgs_in_bytes,
        queue_stats.get_bytes,
        queue_stats.browse_bytes,
        queue_stats.put_failed_count as failed_puts,
        queue_stats.put1_failed_count as failed_put1s,
        queue_stats.get_failed_count as failed_gets,
        queue_stats.browse_failed_count as failed_browses,
        queue_stats.get_no_msg_available_count as gets_no_msg_available,
        queue_stats.get_truncated_failed_count as gets_truncated_failed,
        -- QQSTFLGT counts no-wait gets that found no message (QQSTNMAG: a polling application's normal
        -- "empty") and gets whose buffer was too small (MQRC_TRUNCATED_MSG_FAILED: retried with a
        -- bigger one); both are subsets of it (IBM MQ 'Queue data records'). What remains are the real failures.
        queue_stats.get_failed_count - queue_stats.get_no_msg_available_count - queue_stats.get_truncated_failed_count
            as hard_failed_gets,
        queue_stats.fast_put_count as fast_puts,
        queue_stats.expired_msg_count as expired_msgs,
        queue_stats.put_rolled_back_count as rolled_back_puts,
        queue_stats.get_rolled_back_count as rolled_back_gets,
        queue_stats.msg_size_min_bytes,
        queue_stats.msg_size_max_bytes,
        queue_stats.msg_size_avg_bytes,
        queue_stats.open_count as opens,
        queue_stats.close_count as closes,
        queue_stats.input_handles_open,
        queue_stats.output_handles_open,
        queue_stats.input_handles_high,
        queue_stats.input_handles_low,
        queue_stats.output_handles_high,
        queue_stats.output_handles_low,
        queue_stats.loaded_at
    from queue_stats
    left join qmgr_qsg on queue_stats.qmgr_name = qmgr_qsg.qmgr_name
),

final as (
    select
        *,
        msgs_in - msgs_out as net_msgs_in,
        {{ safe_divide('msgs_in', 'interval_seconds') }} as msgs_in_per_second,
        {{ safe_divide('msgs_out', 'interval_seconds') }} as msgs_out_per_second,
        {{ safe_divide('browses', 'interval_seconds') }} as browses_per_second,
        {{ safe_divide('msgs_in_bytes', 'interval_seconds') }} as msgs_in_bytes_per_second,
        {{ safe_divide('get_bytes', 'interval_seconds') }} as get_bytes_per_second,
        {{ safe_divide('failed_puts + failed_put1s + hard_failed_gets', 'interval_seconds') }} as failures_per_second,
        {{ safe_divide('gets_no_msg_available', 'interval_seconds') }} as gets_no_msg_available_per_second,
        {{ safe_divide('gets_truncated_failed', 'interval_seconds') }} as gets_truncated_failed_per_second
    from rules_applied
)

select * from final
