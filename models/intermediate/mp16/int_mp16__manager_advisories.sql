-- MP16 data and message manager rules DM01 and MM01-MM03 on
-- fct_data_manager_stats (QIST) and fct_message_manager_stats (QMST). MM02 fires where LOG02 fires
-- (int_mp16__log_advisories) on a queue manager that makes persistent puts.
-- Grain: one row per rule x queue manager x interval that fires.
{%- set mp16 = mp16_rule_parameters() %}

with

data_manager as (
    select * from {{ ref('fct_data_manager_stats') }}
),

message_manager as (
    select * from {{ ref('fct_message_manager_stats') }}
),

log_bound as (
    select
        qmgr_name,
        interval_start_at,
        severity as log02_severity,
        observed_value as log_utilisation
    from {{ ref('int_mp16__log_advisories') }}
    where rule_id = 'LOG02'
),

segments as (
    select * from {{ ref('int_smf__qmgr_segments') }}
),

-- DM01 skips the queue manager's restart phase (macro mp16_restart_phase) and needs min_volume gets.
data_manager_phases as (
    select
        data_manager.*,
        coalesce({{ mp16_restart_phase(
            'data_manager.gets_from_page_set > 0', 'data_manager.qmgr_name', 'data_manager.interval_start_at',
            'segments.segment_started_at', mp16, 'DM01'
        ) }}, false) as is_restart_phase
    from data_manager
    left join segments
        on
            data_manager.qmgr_name = segments.qmgr_name
            and data_manager.aligned_interval_end_at = segments.aligned_interval_end_at
),

dm01 as (
    select
        'DM01' as rule_id,
        case
            when
                not is_restart_phase
                and gets_from_page_set + gets_from_buffer_pool >= {{ mp16_threshold(mp16, 'DM01', 'min_volume') }}
                then {{ mp16_severity(mp16, 'DM01', 'disk_get_share') }}
        end as severity,
        'data_manager' as object_type,
        qmgr_name,
        qsg_name,
        interval_start_at,
        interval_end_at,
        disk_get_share as observed_value,
        {{ mp16_severity_threshold(mp16, 'DM01', mp16_severity(mp16, 'DM01', 'disk_get_share')) }} as threshold_value,
        format_string(
            'QISTGETD %d of %d MQGETs read their message from the page set',
            cast(gets_from_page_set as bigint), cast(gets_from_page_set + gets_from_buffer_pool as bigint)
        ) as observation
    from data_manager_phases
),

message_stats as (
    select
        *,
        {{ safe_divide(
            'persistent_put_bytes + nonpersistent_put_bytes', 'persistent_puts + nonpersistent_puts'
        ) }} as avg_put_bytes
    from message_manager
),

mm01 as (
    select
        'MM01' as rule_id,
        case
            when opens_per_second > {{ mp16_threshold(mp16, 'MM01', 'opens_per_second') }}
                then {{ mp16_severity(mp16, 'MM01', 'opens_per_operation') }}
        end as severity,
        'message_manager' as object_type,
        qmgr_name,
        qsg_name,
        interval_start_at,
        interval_end_at,
        opens_per_operation as observed_value,
        {{ mp16_severity_threshold(mp16, 'MM01', mp16_severity(mp16, 'MM01', 'opens_per_operation')) }}
            as threshold_value,
        format_string(
            'QMSTOPEN %d opens (%.0f per second) for %d puts and %d gets',
            cast(opens as bigint), opens_per_second, cast(puts as bigint), cast(gets as bigint)
        ) as observation
    from message_stats
),

mm02 as (
    select
        'MM02' as rule_id,
        {{ mp16_severity(mp16, 'MM02', 'message_stats.persistent_put_share') }} as severity,
        'message_manager' as object_type,
        message_stats.qmgr_name,
        message_stats.qsg_name,
        message_stats.interval_start_at,
        message_stats.interval_end_at,
        message_stats.persistent_put_share as observed_value,
        {{ mp16_severity_threshold(
            mp16, 'MM02', mp16_severity(mp16, 'MM02', 'message_stats.persistent_put_share')
        ) }} as threshold_value,
        format_string(
            '%.0f %% of the puts are persistent while the log runs at %.0f %% of its reference rate (LOG02 %s)',
            100 * message_stats.persistent_put_share, 100 * log_bound.log_utilisation, log_bound.log02_severity
        ) as observation
    from message_stats
    inner join log_bound
        on
            message_stats.qmgr_name = log_bound.qmgr_name
            and message_stats.interval_start_at = log_bound.interval_start_at
),

mm03 as (
    select
        'MM03' as rule_id,
        {{ mp16_severity(mp16, 'MM03', 'avg_put_bytes') }} as severity,
        'message_manager' as object_type,
        qmgr_name,
        qsg_name,
        interval_start_at,
        interval_end_at,
        avg_put_bytes as observed_value,
        {{ mp16_severity_threshold(mp16, 'MM03', mp16_severity(mp16, 'MM03', 'avg_put_bytes')) }} as threshold_value,
        format_string(
            '%.0f bytes per put on average over %d puts',
            avg_put_bytes, cast(persistent_puts + nonpersistent_puts as bigint)
        ) as observation
    from message_stats
),

final as (
    {%- for rule in ['dm01', 'mm01', 'mm02', 'mm03'] %}
        select
            rule_id,
            severity,
            severity as threshold_level,
            qmgr_name,
            qsg_name,
            object_type,
            qmgr_name as object_name,
            interval_start_at,
            interval_end_at,
            'interval' as evaluation_window,
            cast(observed_value as double) as observed_value,
            cast(threshold_value as double) as threshold_value,
            observation,
            cast(null as string) as applied_comparison
        from {{ rule }}
        {%- if not loop.last %}
            union all
        {%- endif %}
    {%- endfor %}
)

select * from final
where severity is not null
