-- Which queue manager produced statistics in which (aligned) interval: the basis of "queue managers
-- active in the QSG" and of the queue manager dimension. One structure per record subtype is enough
-- to see a queue manager's intervals: QJST (115/1), QMST (115/2), QIS1 (115/201), QPST (115/215),
-- QQST (115/216), QCCT (115/231). A table, not a view: most models join it, and it is small.
-- Incremental (insert_overwrite by interval_date, the UTC date of the interval's aligned start): a
-- run rebuilds the dates the loads changed and the day after them, reading the raw dates around
-- them too (a structure written a few milliseconds before midnight aligns to the next day).
-- Grain: one row per queue manager x aligned statistics interval (aligned_interval_end_at).
{{ config(
    materialized='incremental',
    incremental_strategy='insert_overwrite',
    partition_by=['interval_date'],
    on_schema_change='fail',
) }}
{%- set statistics_models = [
    'stg_smf__qjst', 'stg_smf__qmst', 'stg_smf__qis1', 'stg_smf__qpst', 'stg_smf__qqst', 'stg_smf__qcct'
] %}
{%- set dates = changed_interval_date_literals(this) if is_incremental() else none %}

with

statistics_records as (
    {%- for model_name in statistics_models %}
        select
            qmgr_name,
            qsg_name,
            system_id,
            mq_version,
            utc_offset_minutes,
            interval_start_at,
            interval_end_at,
            record_created_at,
            {%- if model_name == 'stg_smf__qqst' %}
                case when is_shared then nullif(trim(queue_qsg_name), '') end as shared_queue_qsg_name,
            {%- else %}
                cast(null as string) as shared_queue_qsg_name,
            {%- endif %}
            loaded_at,
            interval_date
        from {{ ref(model_name) }}
        where
            interval_start_at is not null
            {%- if dates %}
                and {{ interval_dates_near(dates, days_before=1, days_after=1) }}
            {%- endif %}
        {%- if not loop.last %}
            union all
        {%- endif %}
    {%- endfor %}
),

aligned as (
    select
        *,
        {{ align_timestamp('interval_start_at') }} as aligned_interval_start_at,
        {{ align_timestamp('interval_end_at') }} as aligned_interval_end_at
    from statistics_records
),

final as (
    select
        qmgr_name,
        aligned_interval_end_at,
        min(aligned_interval_start_at) as aligned_interval_start_at,
        min(interval_start_at) as interval_start_at,
        max(interval_end_at) as interval_end_at,
        -- A standalone MQ 10 queue manager writes QWHX with a blank QSG name: outside any QSG (NULL).
        max(nullif(trim(qsg_name), '')) as header_qsg_name,
        -- The QSG its shared queues name (QQSTQSGN, the latest record's): int_smf__qmgr_qsg's evidence
        -- before MQ 10, kept here so that it reads a row per interval, not every queue of all history.
        max_by(shared_queue_qsg_name, case when shared_queue_qsg_name is not null then record_created_at end)
            as shared_queue_qsg_name,
        max(case when shared_queue_qsg_name is not null then record_created_at end) as shared_queue_qsg_named_at,
        max_by(system_id, record_created_at) as system_id,
        max_by(mq_version, record_created_at) as mq_version,
        max_by(utc_offset_minutes, record_created_at) as utc_offset_minutes,
        count(*) as statistics_instances,
        max(loaded_at) as loaded_at,
        {{ utc_date('min(aligned_interval_start_at)') }} as interval_date
    from aligned
    group by qmgr_name, aligned_interval_end_at
)

select * from final
{%- if dates %}
    where {{ interval_dates_near(dates, days_after=1) }}
{%- endif %}
