-- Channel accounting (QCST of SMF 116 subtype 10, written by the channel initiator for channels with
-- STATCHL set): what one channel did in one accounting interval, the QCST blocks of its instances
-- in that interval summed. A channel is its name, connection name and remote queue manager (for a
-- SVRCONN: the client application), so several client connections of one SVRCONN stay apart;
-- several instances of the same connection in one interval (a channel restarted, a client
-- reconnecting) are summed, their settings and extremes taken at the most.
-- Incremental (insert_overwrite by interval_date, the latest raw partition of the interval's
-- records): a run rebuilds the dates the loads changed and the day after them, reading the records
-- of the days around them (one interval's records written on either side of midnight).
-- Grain: one row per queue manager x channel (name, connection name, remote queue manager) x
-- accounting interval end.
{%- set dates = changed_interval_date_literals(this) if is_incremental() else none %}
{#- QCSTETMN / QCSTNTMN hold X'8FFFFFFF' when nothing was measured (the layout's meaning). #}
{%- set no_time = 2415919103 %}
{%- set sender_types = [1, 2, 9] %}

with

blocks as (
    select * from {{ ref('stg_smf__qcst') }}
    {%- if dates %}
        where {{ interval_dates_near(dates, days_before=1, days_after=1) }}
    {%- endif %}
),

per_channel as (
    select
        qmgr_name,
        channel_name,
        coalesce(conn_name, '') as conn_name,
        coalesce(remote_qmgr_name, '') as remote_qmgr_name,
        interval_end_at,
        min(interval_start_at) as interval_start_at,
        max(interval_seconds) as interval_seconds,
        max(system_id) as system_id,
        max(mq_version) as mq_version,
        max(channel_type_code) as channel_type_code,
        max(channel_disposition_code) as channel_disposition_code,
        count(*) as channel_instances,
        count(case when channel_started_at >= interval_start_at then 1 end) as instances_started_in_interval,
        min(channel_started_at) as first_started_at,
        max(last_msg_at) as last_msg_at,
        max(batch_size) as batch_size,
        max(batch_interval_ms) as batch_interval_ms,
        max(batch_data_limit_kb) as batch_data_limit_kb,
        sum(msg_count) as msgs,
        sum(persistent_msg_count) as persistent_msgs,
        sum(batch_count) as batches,
        sum(full_batch_count) as full_batches,
        sum(buffers_sent_count) as buffers_sent,
        sum(buffers_received_count) as buffers_received,
        cast(sum(msg_bytes) as decimal(20, 0)) as msg_bytes,
        cast(sum(persistent_msg_bytes) as decimal(20, 0)) as persistent_msg_bytes,
        cast(sum(sent_bytes) as decimal(20, 0)) as sent_bytes,
        cast(sum(received_bytes) as decimal(20, 0)) as received_bytes,
        max(shared_conversations_current) as shared_conversations_max,
        max(compression_rate) as compression_rate_max,
        -- Averages over the instances that measured any (an average of 0 with a 'none' minimum did not).
        avg(case when exit_time_min_us <> {{ no_time }} then exit_time_avg_us end) as exit_time_avg_us,
        min(nullif(exit_time_min_us, {{ no_time }})) as exit_time_min_us,
        max(case when exit_time_min_us <> {{ no_time }} then exit_time_max_us end) as exit_time_max_us,
        avg(case when network_time_min_us <> {{ no_time }} then network_time_avg_us end) as network_time_avg_us,
        min(nullif(network_time_min_us, {{ no_time }})) as network_time_min_us,
        max(case when network_time_min_us <> {{ no_time }} then network_time_max_us end) as network_time_max_us,
        max(nullif(dns_resolution_time_us, 0)) as dns_resolution_time_max_us,
        sum(put_retry_count) as put_retries,
        sum(xmitq_empty_count) as xmitq_empty_count,
        max(tls_cipher_suite_code) > 0 as is_tls,
        max(loaded_at) as loaded_at,
        max(interval_date) as interval_date
    from blocks
    group by qmgr_name, channel_name, coalesce(conn_name, ''), coalesce(remote_qmgr_name, ''), interval_end_at
),

with_qsg as (
    select
        per_channel.*,
        qmgr_qsg.qsg_name
    from per_channel
    left join {{ ref('int_smf__qmgr_qsg') }} as qmgr_qsg on per_channel.qmgr_name = qmgr_qsg.qmgr_name
),

final as (
    select
        {{ surrogate_key([
            'qmgr_name', 'channel_name', 'conn_name', 'remote_qmgr_name', 'unix_micros(interval_end_at)'
        ]) }} as channel_accounting_key,
        qmgr_name,
        qsg_name,
        system_id,
        mq_version,
        channel_name,
        conn_name,
        remote_qmgr_name,
        cast(channel_type_code as int) as channel_type_code,
        cast(channel_disposition_code as int) as channel_disposition_code,
        coalesce(channel_type_code in ({{ sender_types | join(', ') }}), false) as is_sender_type,
        interval_start_at,
        interval_end_at,
        interval_seconds,
        channel_instances,
        instances_started_in_interval,
        first_started_at,
        last_msg_at,
        cast(batch_size as bigint) as batch_size,
        cast(batch_interval_ms as bigint) as batch_interval_ms,
        cast(batch_data_limit_kb as bigint) as batch_data_limit_kb,
        cast(msgs as bigint) as msgs,
        cast(persistent_msgs as bigint) as persistent_msgs,
        cast(batches as bigint) as batches,
        cast(full_batches as bigint) as full_batches,
        {{ safe_divide('msgs', 'batches') }} as msgs_per_batch,
        {{ safe_divide('msgs', 'interval_seconds') }} as msgs_per_second,
        {{ safe_divide('persistent_msgs', 'msgs') }} as persistent_share,
        cast(buffers_sent as bigint) as buffers_sent,
        cast(buffers_received as bigint) as buffers_received,
        msg_bytes,
        persistent_msg_bytes,
        {{ safe_divide('msg_bytes', 'msgs') }} as avg_msg_bytes,
        sent_bytes,
        received_bytes,
        cast(shared_conversations_max as bigint) as shared_conversations_max,
        cast(compression_rate_max as bigint) as compression_rate_max,
        cast(exit_time_avg_us as double) as exit_time_avg_us,
        cast(exit_time_min_us as bigint) as exit_time_min_us,
        cast(exit_time_max_us as bigint) as exit_time_max_us,
        cast(network_time_avg_us as double) as network_time_avg_us,
        cast(network_time_min_us as bigint) as network_time_min_us,
        cast(network_time_max_us as bigint) as network_time_max_us,
        cast(dns_resolution_time_max_us as bigint) as dns_resolution_time_max_us,
        cast(put_retries as bigint) as put_retries,
        cast(xmitq_empty_count as bigint) as xmitq_empty_count,
        coalesce(is_tls, false) as is_tls,
        loaded_at,
        interval_date
    from with_qsg
)

select * from final
{%- if dates %}
    where {{ interval_dates_near(dates, days_after=1) }}
{%- endif %}
