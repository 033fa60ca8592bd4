-- The channel initiator's four task arrays of SMF 115 subtype 231 (dispatchers QCTDSP, adapters
-- QCTADP, SSL tasks QCTSSL, DNS task QCTDNS) as one relation, with the busy and per-request measures
-- of MP16 ("CHIADAPS" (ch. 3, p. 115); "CHIDISPS and MAXCHL" (ch. 3, p. 116)): a task is busy for
-- the elapsed time it spent processing requests (QCTELTM) out of the interval.
-- Grain: one row per queue manager x statistics interval x task type x task (entry in the record).
{%- set task_arrays = {
    'dispatcher': 'stg_smf__qctdsp',
    'adapter': 'stg_smf__qctadp',
    'ssl': 'stg_smf__qctssl',
    'dns': 'stg_smf__qctdns',
} %}

with

tasks as (
    {%- for task_type, staging_model in task_arrays.items() %}
        select
            -- The staging keys of the four arrays coincide (queue manager, interval, entry): add the type.
            {{ surrogate_key([task_type ~ '.' ~ staging_model.split('__')[1] ~ '_key', "'" ~ task_type ~ "'"]) }}
                as channel_initiator_task_stats_key,
            '{{ task_type }}' as task_type,
            {{ task_type }}.qmgr_name,
            {{ task_type }}.system_id,
            {{ task_type }}.mq_version,
            {{ interval_columns(task_type) }},
            {{ task_type }}.entry_index as task_index,
            {{ task_type }}.task_number,
            {{ task_type }}.request_count as requests,
            {{ task_type }}.cpu_time_us as cpu_us,
            {{ task_type }}.elapsed_time_us as elapsed_us,
            {{ task_type }}.wait_time_us as wait_us,
            {{ task_type ~ '.channels' if task_type == 'dispatcher' else 'cast(null as int)' }} as channels,
            {{ task_type ~ '.longest_request_at' if task_type in ('ssl', 'dns') else 'cast(null as timestamp)' }}
                as longest_request_at,
            {{ task_type ~ '.longest_request_us' if task_type in ('ssl', 'dns') else 'cast(null as bigint)' }}
                as longest_request_us,
            {{ task_type }}.loaded_at
        from {{ ref(staging_model) }} as {{ task_type }}
        {%- if not loop.last %}
            union all
        {%- endif %}
    {%- endfor %}
),

derived as (
    select
        *,
        100 * {{ safe_divide('elapsed_us', 'interval_seconds * 1e6') }} as busy_pct,
        100 * {{ safe_divide('cpu_us', 'interval_seconds * 1e6') }} as cpu_pct,
        {{ safe_divide('elapsed_us', 'requests') }} as avg_request_us,
        {{ safe_divide('cpu_us', 'requests') }} as avg_request_cpu_us
    from tasks
)

select * from derived
