-- Queue depth event messages (PCF MQCFT_EVENT / MQCMD_PERFM_EVENT) from dmpmqmsg dumps, renamed.
-- A CorrelId of zeros is MQCI_NONE: IBM sets it only on shared-queue events (IBM MQ 'Shared
-- queues and queue depth events on z/OS').
-- Grain: one row per event message (event queue manager x MsgId x put time).
with

source as (
    {{ published_rows(source('pcf_raw', 'perfm_event')) }}
),

renamed as (
    select
        {{ surrogate_key(['event_qmgr_name', 'msg_id', 'unix_micros(put_at)']) }} as perfm_event_key,
        source_file,
        record_offset,
        line_number,
        event_qmgr_name as qmgr_name,
        queue_name,
        event,
        event_name,
        reason as reason_code,
        nullif(correl_id, repeat('0', 48)) as correl_id,
        correl_id is not null and correl_id != repeat('0', 48) as is_shared_queue_event,
        msg_id,
        put_at,
        put_appl_name,
        encoding,
        coded_char_set_id,
        byte_order,
        char_set,
        seconds_since_reset,
        high_q_depth,
        msg_enq_count,
        msg_deq_count,
        coalesce(msg_enq_count, 0) = 0 and coalesce(msg_deq_count, 0) = 0 as is_null_event,
        loaded_at
    from source
)

select * from renamed
