-- Shared-queue statistics of a whole queue-sharing group. Each queue manager reports only its own
-- activity on a shared queue, so, as for RESET QSTATS with CMDSCOPE(*):
--   counters (puts, gets, bytes, failures, MSGSIN, MSGSOUT, handles) are summed over the queue managers;
--   peak depth is the maximum of the per-queue-manager QQSTDPHI, an approximation (each queue manager
--   only samples the depth at its own puts and at collection time);
--   the current depth and oldest-message age are read from the CF by every queue manager: the newest
--   trustworthy (non-partial) reading is kept.
-- Queue managers are matched on the aligned interval end; "active" queue managers are those of the
-- QSG that wrote any statistics in that interval.
-- Grain: one row per queue-sharing group x shared queue x aligned statistics interval.

with

shared_queue_stats as (
    select * from {{ ref('int_queue_stats__partial_rules_applied') }}
    where is_shared
),

qmgr_qsg as (
    select * from {{ ref('int_smf__qmgr_qsg') }}
),

active_qmgrs as (
    select
        qmgr_qsg.qsg_name,
        intervals.aligned_interval_end_at,
        count(distinct intervals.qmgr_name) as qmgrs_active
    from {{ ref('int_smf__qmgr_intervals') }} as intervals
    inner join qmgr_qsg on intervals.qmgr_name = qmgr_qsg.qmgr_name
    where qmgr_qsg.qsg_name is not null
    group by qmgr_qsg.qsg_name, intervals.aligned_interval_end_at
),

rolled_up as (
    select
        qsg_name,
        queue_name,
        aligned_interval_end_at,
        {{ aligned_interval_date('aligned_interval_end_at') }} as interval_date,
        min(aligned_interval_start_at) as aligned_interval_start_at,
        min(interval_start_at) as first_interval_start_at,
        max(interval_end_at) as last_interval_end_at,
        max(cf_structure_name) as cf_structure_name,
        count(distinct qmgr_name) as qmgrs_reporting,
        count(distinct case when is_partial then qmgr_name end) as qmgrs_partial,
        bool_or(is_partial) as has_partial,
        array_join(array_sort(collect_set(qmgr_name)), ',') as reporting_qmgr_names,
        sum(puts) as puts,
        sum(put1s) as put1s,
        sum(msgs_in) as msgs_in,
        sum(msgs_out) as msgs_out,
        sum(gets) as gets,
        sum(browses) as browses,
        sum(persistent_msgs_in) as persistent_msgs_in,
        sum(nonpersistent_msgs_in) as nonpersistent_msgs_in,
        sum(msgs_in_bytes) as msgs_in_bytes,
        sum(get_bytes) as get_bytes,
        sum(browse_bytes) as browse_bytes,
        sum(failed_puts) as failed_puts,
        sum(failed_put1s) as failed_put1s,
        sum(failed_gets) as failed_gets,
        sum(failed_browses) as failed_browses,
        sum(expired_msgs) as expired_msgs,
        sum(input_handles_open) as input_handles_open,
        sum(output_handles_open) as output_handles_open,
        max(depth_high) as depth_high_max,
        min(depth_low) as depth_low_min,
        max_by(depth_current, case when depth_current is not null then record_created_at end) as depth_current,
        max(oldest_msg_age_seconds) as oldest_msg_age_seconds,
        sum(msgs_in_per_second) as msgs_in_per_second,
        sum(msgs_out_per_second) as msgs_out_per_second,
        max(loaded_at) as loaded_at
    from shared_queue_stats
    group by qsg_name, queue_name, aligned_interval_end_at
),

final as (
    select
        {{ surrogate_key([
            'rolled_up.qsg_name', 'rolled_up.queue_name', 'unix_micros(rolled_up.aligned_interval_end_at)'
        ]) }} as shared_queue_qsg_stats_key,
        rolled_up.qsg_name,
        rolled_up.queue_name,
        rolled_up.cf_structure_name,
        rolled_up.aligned_interval_start_at as interval_start_at,
        rolled_up.aligned_interval_end_at as interval_end_at,
        (unix_micros(rolled_up.aligned_interval_end_at) - unix_micros(rolled_up.aligned_interval_start_at)) / 1e6
            as interval_seconds,
        rolled_up.first_interval_start_at,
        rolled_up.last_interval_end_at,
        rolled_up.qmgrs_reporting,
        coalesce(active_qmgrs.qmgrs_active, rolled_up.qmgrs_reporting) as qmgrs_active,
        rolled_up.qmgrs_partial,
        rolled_up.has_partial,
        rolled_up.reporting_qmgr_names,
        rolled_up.puts,
        rolled_up.put1s,
        rolled_up.msgs_in,
        rolled_up.msgs_out,
        rolled_up.gets,
        rolled_up.browses,
        rolled_up.persistent_msgs_in,
        rolled_up.nonpersistent_msgs_in,
        rolled_up.msgs_in_bytes,
        rolled_up.get_bytes,
        rolled_up.browse_bytes,
        rolled_up.failed_puts,
        rolled_up.failed_put1s,
        rolled_up.failed_gets,
        rolled_up.failed_browses,
        rolled_up.expired_msgs,
        rolled_up.input_handles_open,
        rolled_up.output_handles_open,
        rolled_up.depth_high_max,
        -- Exact only when one queue manager did all the putting and saw every change of depth.
        rolled_up.qmgrs_reporting > 1 or rolled_up.has_partial as is_depth_high_approximate,
        rolled_up.depth_low_min,
        rolled_up.depth_current,
        rolled_up.oldest_msg_age_seconds,
        rolled_up.msgs_in_per_second,
        rolled_up.msgs_out_per_second,
        rolled_up.loaded_at,
        rolled_up.interval_date
    from rolled_up
    left join active_qmgrs
        on
            rolled_up.qsg_name = active_qmgrs.qsg_name
            and rolled_up.aligned_interval_end_at = active_qmgrs.aligned_interval_end_at
)

select * from final
