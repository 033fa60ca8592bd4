-- Channel initiator statistics (QCCT, SMF 115 subtype 231) with its task arrays summed per task
-- type: channel high-water marks against MAXCHL / ACTCHL, storage, and for dispatchers, adapters,
-- SSL and DNS tasks their number, requests, busy % and time per request (MP16 "Channel initiator"
-- (ch. 3): "CHIADAPS" (p. 115), "CHIDISPS and MAXCHL" (p. 116), "SSLTASKS" (p. 138)).
-- Grain: one row per queue manager x statistics interval.
{%- set task_types = ['dispatcher', 'adapter', 'ssl', 'dns'] %}

with

channel_initiator as (
    {{ select_changed_interval_dates(ref('stg_smf__qcct')) }}
),

tasks as (
    {{ select_changed_interval_dates(ref('int_channel_initiator_tasks__unioned')) }}
),

qmgr_qsg as (
    select * from {{ ref('int_smf__qmgr_qsg') }}
),

task_totals as (
    select
        qmgr_name,
        interval_start_at,
        {%- for task_type in task_types %}
            count(case when task_type = '{{ task_type }}' then 1 end) as {{ task_type }}_tasks,
            sum(case when task_type = '{{ task_type }}' then requests end) as {{ task_type }}_requests,
            avg(case when task_type = '{{ task_type }}' then busy_pct end) as {{ task_type }}_busy_pct_avg,
            max(case when task_type = '{{ task_type }}' then busy_pct end) as {{ task_type }}_busy_pct_max,
            {{ safe_divide(
                "sum(case when task_type = '" ~ task_type ~ "' then elapsed_us end)",
                "sum(case when task_type = '" ~ task_type ~ "' then requests end)"
            ) }} as {{ task_type }}_avg_request_us,
            {{ safe_divide(
                "sum(case when task_type = '" ~ task_type ~ "' then cpu_us end)",
                "sum(case when task_type = '" ~ task_type ~ "' then requests end)"
            ) }} as {{ task_type }}_avg_request_cpu_us,
        {%- endfor %}
        max(case when task_type = 'dispatcher' then channels end) as dispatcher_channels_max
    from tasks
    group by qmgr_name, interval_start_at
),

final as (
    select
        channel_initiator.qcct_key as channel_initiator_stats_key,
        channel_initiator.qmgr_name,
        qmgr_qsg.qsg_name,
        channel_initiator.interval_start_at,
        channel_initiator.interval_end_at,
        channel_initiator.interval_seconds,
        {{ align_timestamp('channel_initiator.interval_start_at') }} as aligned_interval_start_at,
        {{ align_timestamp('channel_initiator.interval_end_at') }} as aligned_interval_end_at,
        channel_initiator.system_id,
        channel_initiator.mq_version,
        channel_initiator.structure_length,
        channel_initiator.chin_job_name,
        channel_initiator.current_channels_high,
        channel_initiator.max_channels,
        channel_initiator.active_channels_high,
        channel_initiator.max_active_channels,
        channel_initiator.max_tcp_channels,
        channel_initiator.max_lu62_channels,
        100 * {{ safe_divide('channel_initiator.current_channels_high', 'channel_initiator.max_channels') }}
            as channel_use_pct,
        100 * {{ safe_divide('channel_initiator.active_channels_high', 'channel_initiator.max_active_channels') }}
            as active_channel_use_pct,
        channel_initiator.storage_usage_31bit_mb,
        channel_initiator.storage_used_64bit,
        channel_initiator.storage_limit_64bit,
        {%- for task_type in task_types %}
            coalesce(task_totals.{{ task_type }}_tasks, 0) as {{ task_type }}_tasks,
            task_totals.{{ task_type }}_requests,
            task_totals.{{ task_type }}_busy_pct_avg,
            task_totals.{{ task_type }}_busy_pct_max,
            task_totals.{{ task_type }}_avg_request_us,
            task_totals.{{ task_type }}_avg_request_cpu_us,
        {%- endfor %}
        task_totals.dispatcher_channels_max,
        channel_initiator.loaded_at,
        channel_initiator.interval_date
    from channel_initiator
    left join task_totals
        on
            channel_initiator.qmgr_name = task_totals.qmgr_name
            and channel_initiator.interval_start_at = task_totals.interval_start_at
    left join qmgr_qsg on channel_initiator.qmgr_name = qmgr_qsg.qmgr_name
)

select * from final
