-- Every shared-queue QSG row must equal the sum (max for the peak depth) of the per-queue-manager
-- rows it rolls up, and every per-queue-manager shared-queue row must be rolled up somewhere.
-- Returns the rows that disagree.

with

members as (
    select
        qsg_name,
        queue_name,
        aligned_interval_end_at as interval_end_at,
        count(distinct qmgr_name) as qmgrs_reporting,
        sum(puts) as puts,
        sum(put1s) as put1s,
        sum(msgs_in) as msgs_in,
        sum(msgs_out) as msgs_out,
        sum(browses) as browses,
        sum(msgs_in_bytes) as msgs_in_bytes,
        sum(get_bytes) as get_bytes,
        sum(failed_puts) as failed_puts,
        sum(failed_gets) as failed_gets,
        max(depth_high) as depth_high_max,
        bool_or(is_partial) as has_partial
    from {{ ref('fct_queue_stats') }}
    where is_shared
    group by qsg_name, queue_name, aligned_interval_end_at
),

qsg as (
    select
        qsg_name,
        queue_name,
        interval_end_at,
        qmgrs_reporting,
        puts,
        put1s,
        msgs_in,
        msgs_out,
        browses,
        msgs_in_bytes,
        get_bytes,
        failed_puts,
        failed_gets,
        depth_high_max,
        has_partial
    from {{ ref('fct_shared_queue_qsg_stats') }}
)

select
    coalesce(members.qsg_name, qsg.qsg_name) as qsg_name,
    coalesce(members.queue_name, qsg.queue_name) as queue_name,
    coalesce(members.interval_end_at, qsg.interval_end_at) as interval_end_at
from members
full outer join qsg
    on
        members.qsg_name = qsg.qsg_name
        and members.queue_name = qsg.queue_name
        and members.interval_end_at = qsg.interval_end_at
where
    members.qsg_name is null
    or qsg.qsg_name is null
    or members.qmgrs_reporting != qsg.qmgrs_reporting
    or not (members.puts <=> qsg.puts)
    or not (members.put1s <=> qsg.put1s)
    or not (members.msgs_in <=> qsg.msgs_in)
    or not (members.msgs_out <=> qsg.msgs_out)
    or not (members.browses <=> qsg.browses)
    or not (members.msgs_in_bytes <=> qsg.msgs_in_bytes)
    or not (members.get_bytes <=> qsg.get_bytes)
    or not (members.failed_puts <=> qsg.failed_puts)
    or not (members.failed_gets <=> qsg.failed_gets)
    or not (members.depth_high_max <=> qsg.depth_high_max)
    or members.has_partial != qsg.has_partial
