-- Queue depth event messages with the queue-sharing group of the queue manager that wrote them.
-- reset_at: when the counts of the message start (its previous event or statistics reset).
-- Grain: one row per event message.
with

events as (
    select * from {{ ref('stg_pcf__perfm_events') }}
),

qmgr_qsg as (
    select
        qmgr_name,
        qsg_name
    from {{ ref('int_smf__qmgr_qsg') }}
),

final as (
    select
        events.perfm_event_key,
        events.qmgr_name,
        qmgr_qsg.qsg_name,
        events.queue_name,
        events.event,
        events.event_name,
        events.reason_code,
        events.correl_id,
        events.is_shared_queue_event,
        events.put_at,
        to_date(events.put_at) as event_date,
        events.put_at - make_dt_interval(0, 0, 0, events.seconds_since_reset) as reset_at,
        events.seconds_since_reset,
        events.high_q_depth,
        events.msg_enq_count,
        events.msg_deq_count,
        events.is_null_event,
        events.msg_id,
        events.byte_order,
        events.char_set,
        events.source_file,
        events.line_number
    from events
    left join qmgr_qsg on events.qmgr_name = qmgr_qsg.qmgr_name
)

select * from final
