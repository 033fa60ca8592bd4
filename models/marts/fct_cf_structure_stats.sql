{{ config(
    materialized='incremental',
    incremental_strategy='insert_overwrite',
    partition_by=['interval_date'],
    file_format='parquet',
    on_schema_change='fail'
) }}
-- Coupling facility structures across their queue-sharing group: requests and redrives summed over
-- the queue managers, redrive % and average service time recomputed from the sums.
-- Grain: one row per queue-sharing group x CF structure x aligned statistics interval.

with

qsg_stats as (
    select * from {{ ref('int_cf_structure_stats__rolled_up_to_qsg') }}
    {%- if is_incremental() %}
        where interval_date in ({{ changed_interval_dates(ref('int_cf_structure_stats__rolled_up_to_qsg')) }})
    {%- endif %}
),

final as (
    select
        cf_structure_stats_key,
        cf_structure_key,
        qsg_name,
        structure_name,
        interval_start_at,
        interval_end_at,
        interval_seconds,
        qmgrs_reporting,
        qmgrs_active,
        reporting_qmgr_names,
        requests,
        single_entry_requests,
        multi_entry_requests,
        redrives,
        redrive_pct,
        request_time_us,
        avg_service_time_us,
        structure_full_count,
        entries_in_use_max,
        elements_in_use_max,
        loaded_at,
        interval_date
    from qsg_stats
)

select * from final
