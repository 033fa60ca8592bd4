-- One shared-queue depth event across the queue-sharing group (IBM MQ 'Shared queues and queue depth
-- events on z/OS'): the messages that carry
-- the same CorrelId. The coordinating queue manager writes first, so it is the first by put time
-- (if it has PERFMEV disabled it writes nothing and the first answering member shows instead).
-- A QSG member that wrote no message was either inactive (no statistics interval of its own
-- covers the event) or active with PERFMEV disabled.
-- Grain: one row per CorrelId.
with

events as (
    select * from {{ ref('fct_queue_depth_events') }}
    where is_shared_queue_event
),

groups as (
    select
        correl_id,
        max(qsg_name) as qsg_name,
        min(queue_name) as queue_name,
        min(event) as event,
        count(distinct queue_name) as queue_name_count,
        count(distinct event) as event_count,
        min(put_at) as first_put_at,
        max(put_at) as last_put_at,
        min_by(qmgr_name, struct(put_at, qmgr_name)) as coordinating_qmgr_name,
        count(*) as message_count,
        count(distinct qmgr_name) as answering_qmgr_count,
        array_sort(collect_set(qmgr_name)) as answering_qmgrs,
        array_sort(collect_set(case when is_null_event then qmgr_name end)) as idle_qmgrs,
        sum(msg_enq_count) as msg_enq_count,
        sum(msg_deq_count) as msg_deq_count,
        max(high_q_depth) as high_q_depth_max
    from events
    group by correl_id
),

members as (
    select
        qmgr_name,
        qsg_name
    from {{ ref('int_smf__qmgr_qsg') }}
    where is_qsg_member
),

intervals as (
    select
        qmgr_name,
        interval_start_at,
        interval_end_at
    from {{ ref('int_smf__qmgr_intervals') }}
),

member_status as (
    select
        groups.correl_id,
        members.qmgr_name,
        array_contains(groups.answering_qmgrs, members.qmgr_name) as has_answered,
        count(intervals.qmgr_name) > 0 as was_active
    from groups
    inner join members on groups.qsg_name = members.qsg_name
    left join intervals
        on
            members.qmgr_name = intervals.qmgr_name
            and groups.first_put_at >= intervals.interval_start_at
            and groups.first_put_at < intervals.interval_end_at
    group by groups.correl_id, members.qmgr_name, groups.answering_qmgrs
),

silent as (
    select
        correl_id,
        count(*) as qsg_member_count,
        array_sort(collect_set(case when not has_answered then qmgr_name end)) as silent_qmgrs,
        array_sort(collect_set(case when not has_answered and was_active then qmgr_name end))
            as silent_active_qmgrs,
        array_sort(collect_set(case when not has_answered and not was_active then qmgr_name end))
            as inactive_qmgrs
    from member_status
    group by correl_id
),

final as (
    select
        groups.correl_id,
        groups.qsg_name,
        groups.queue_name,
        groups.event,
        to_date(groups.first_put_at) as event_date,
        groups.first_put_at,
        groups.last_put_at,
        groups.coordinating_qmgr_name,
        groups.message_count,
        groups.answering_qmgr_count,
        groups.answering_qmgrs,
        coalesce(silent.qsg_member_count, 0) as qsg_member_count,
        coalesce(silent.silent_qmgrs, array()) as silent_qmgrs,
        coalesce(silent.silent_active_qmgrs, array()) as silent_active_qmgrs,
        coalesce(silent.inactive_qmgrs, array()) as inactive_qmgrs,
        groups.idle_qmgrs,
        groups.msg_enq_count,
        groups.msg_deq_count,
        groups.high_q_depth_max,
        groups.queue_name_count,
        groups.event_count
    from groups
    left join silent on groups.correl_id = silent.correl_id
)

select * from final
