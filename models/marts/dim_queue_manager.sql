-- Queue managers that wrote statistics, with their queue-sharing group (see int_smf__qmgr_qsg), the
-- latest system and MQ version, and the span of intervals seen.
-- Grain: one row per queue manager.

with

intervals as (
    select * from {{ ref('int_smf__qmgr_intervals') }}
),

qmgr_qsg as (
    select * from {{ ref('int_smf__qmgr_qsg') }}
),

summarised as (
    select
        qmgr_name,
        max_by(system_id, aligned_interval_end_at) as system_id,
        max_by(mq_version, aligned_interval_end_at) as mq_version,
        min_by(mq_version, aligned_interval_end_at) as first_mq_version,
        max_by(utc_offset_minutes, aligned_interval_end_at) as utc_offset_minutes,
        min(interval_start_at) as first_interval_start_at,
        max(interval_end_at) as last_interval_end_at,
        count(*) as statistics_intervals
    from intervals
    group by qmgr_name
),

final as (
    select
        summarised.qmgr_name,
        qmgr_qsg.qsg_name,
        qmgr_qsg.is_qsg_name_known,
        qmgr_qsg.is_qsg_member,
        summarised.system_id,
        summarised.mq_version,
        summarised.first_mq_version,
        summarised.utc_offset_minutes,
        summarised.first_interval_start_at,
        summarised.last_interval_end_at,
        summarised.statistics_intervals
    from summarised
    left join qmgr_qsg on summarised.qmgr_name = qmgr_qsg.qmgr_name
)

select * from final
