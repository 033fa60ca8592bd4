-- Coupling facility statistics (QEST, one entry per CF structure the queue manager used) with the
-- derived metrics of MP16 ("What is a re-drive?" (ch. 2, p. 87)) and the queue manager's QSG.
-- IXLLSTE = single-entry list requests, IXLLSTM = multiple-entry list requests.
-- Grain: one row per queue manager x CF structure x statistics interval.

with

cf_structures as (
    select * from {{ ref('stg_smf__qest') }}
),

qmgr_qsg as (
    select * from {{ ref('int_smf__qmgr_qsg') }}
),

measures as (
    select
        cf_structures.qest_key as cf_structure_qmgr_stats_key,
        {{ surrogate_key(['qmgr_qsg.qsg_name', 'cf_structures.structure_name']) }} as cf_structure_key,
        cf_structures.qmgr_name,
        qmgr_qsg.qsg_name,
        cf_structures.structure_name,
        cf_structures.structure_number,
        cf_structures.system_id,
        cf_structures.mq_version,
        {{ interval_columns('cf_structures') }},
        cast(cf_structures.single_entry_request_count as bigint) + cf_structures.multi_entry_request_count
            as requests,
        cf_structures.single_entry_request_count as single_entry_requests,
        cf_structures.multi_entry_request_count as multi_entry_requests,
        cast(cf_structures.single_entry_redrive_count as bigint) + cf_structures.multi_entry_redrive_count
            as redrives,
        cf_structures.single_entry_redrive_count as single_entry_redrives,
        cf_structures.multi_entry_redrive_count as multi_entry_redrives,
        cf_structures.single_entry_request_time_us + cf_structures.multi_entry_request_time_us as request_time_us,
        cf_structures.single_entry_request_time_us,
        cf_structures.multi_entry_request_time_us,
        cf_structures.structure_full_count,
        cf_structures.entries_in_use_max,
        cf_structures.elements_in_use_max,
        cf_structures.loaded_at
    from cf_structures
    left join qmgr_qsg on cf_structures.qmgr_name = qmgr_qsg.qmgr_name
),

derived as (
    select
        *,
        {{ safe_divide('requests', 'interval_seconds') }} as requests_per_second,
        100 * {{ safe_divide('redrives', 'requests') }} as redrive_pct,
        100 * {{ safe_divide('single_entry_redrives', 'single_entry_requests') }} as single_entry_redrive_pct,
        100 * {{ safe_divide('multi_entry_redrives', 'multi_entry_requests') }} as multi_entry_redrive_pct,
        {{ safe_divide('request_time_us', 'requests') }} as avg_service_time_us,
        {{ safe_divide('single_entry_request_time_us', 'single_entry_requests') }}
            as single_entry_avg_service_time_us,
        {{ safe_divide('multi_entry_request_time_us', 'multi_entry_requests') }} as multi_entry_avg_service_time_us,
        {{ safe_divide('request_time_us', 'interval_seconds') }} as cf_time_us_per_second,
        {{ safe_divide('elements_in_use_max', 'entries_in_use_max') }} as elements_per_entry
    from measures
)

select * from derived
