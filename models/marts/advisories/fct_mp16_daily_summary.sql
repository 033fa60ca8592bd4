-- The analyst's day: per queue manager and per queue-sharing group and UTC day, how many MP16
-- advisories of each severity fired, which rules, and the worst intervals (scored 100 per critical,
-- 10 per warning, 1 per info advisory). Days with statistics but no advisory are listed with zeros.
-- Per queue manager and day it also lists the rules that could not be judged there and the input
-- that would enable them (dim_mp16_rule.required_input): rules not possible from SMF; rules on class 3
-- accounting when the queue manager has no accounted task that day; rules on site configuration when
-- the site declares no value of the setting for the queue manager, its z/OS system, its QSG's
-- structures (standalone queue managers have none to judge) or its queues.
-- Grain: one row per summary level (queue_manager / queue_sharing_group) x queue manager or QSG x UTC day.

{%- set structure_columns = dict(
    qsg_name='string', structure_name='string', entries_max='bigint', elements_max='bigint', size_mb='double',
    cf_level='int', recovery_target_minutes='double', backup_interval_minutes='double'
) %}
{#- The site settings each configuration rule needs: queue manager (and system) settings of
    dim_mp16_queue_manager_config; structure settings of the queue manager's QSG; queue settings. -#}
{%- set qmgr_settings = {
    'BP12': 'is_production is not null',
    'LOG13': 'restart_target_minutes is not null and page_set_backup_hours is not null',
    'LOG15': 'is_log_striped is not null',
    'CHIN02': 'processors is not null',
    'CHIN07': 'processors is not null',
    'CHIN10': 'max_proc_user is not null',
} %}
{%- set structure_settings = {
    'CF06': 'entries_max is not null and elements_max is not null',
    'CF08': 'entries_max is not null and elements_max is not null',
    'CF15': 'size_mb is not null',
    'CF16': 'cf_level is not null',
    'LOG12': 'recovery_target_minutes is not null and backup_interval_minutes is not null',
} %}

with

advisories as (
    select * from {{ ref('fct_mp16_advisories') }}
),

qmgr_days as (
    select
        intervals.qmgr_name,
        qmgr_qsg.qsg_name,
        {{ aligned_interval_date('intervals.interval_end_at') }} as advisory_date,
        count(*) as statistics_intervals
    from {{ ref('int_smf__qmgr_intervals') }} as intervals
    left join {{ ref('int_smf__qmgr_qsg') }} as qmgr_qsg on intervals.qmgr_name = qmgr_qsg.qmgr_name
    group by intervals.qmgr_name, qmgr_qsg.qsg_name, {{ aligned_interval_date('intervals.interval_end_at') }}
),

unjudgeable_rules as (
    select
        rule_id,
        evaluation_status,
        required_input
    from {{ ref('dim_mp16_rule') }}
    where evaluation_status <> 'evaluated'
),

qmgr_config as (
    select * from {{ ref('dim_mp16_queue_manager_config') }}
),

structure_config as (
    {{ mp16_site_config('site_config_cf_structures', 'mp16_cf_structure_config', structure_columns) }}
),

queue_config as (
    {{ mp16_site_config(
        'site_config_queues', 'mp16_queue_config',
        dict(qmgr_name='string', queue_name='string', is_ims_bridge='boolean')
    ) }}
),

class_3_days as (
    select distinct
        qmgr_name,
        {{ aligned_interval_date('period_end_at') }} as advisory_date
    from {{ ref('fct_task_accounting') }}
),

-- (queue manager, rule) pairs whose site setting is declared.
qmgr_configured as (
    select
        qmgr_name,
        explode(array(
            {%- for rule_id, condition in qmgr_settings.items() %}
                case when {{ condition }} then '{{ rule_id }}' end{{ ',' if not loop.last }}
            {%- endfor %}
        )) as rule_id
    from qmgr_config
),

structure_configured as (
    select
        qmgr_days.qmgr_name,
        explode(array(
            {%- for rule_id, condition in structure_settings.items() %}
                case when {{ condition }} then '{{ rule_id }}' end{{ ',' if not loop.last }}
            {%- endfor %}
        )) as rule_id
    from qmgr_days
    inner join structure_config on structure_config.qsg_name in (qmgr_days.qsg_name, '*')
),

queue_configured as (
    select
        qmgr_days.qmgr_name,
        'Q09' as rule_id
    from qmgr_days
    inner join queue_config on queue_config.qmgr_name in (qmgr_days.qmgr_name, '*')
    where queue_config.is_ims_bridge
),

configured as (
    select distinct
        qmgr_name,
        rule_id
    from qmgr_configured
    where rule_id is not null
    union
    select
        qmgr_name,
        rule_id
    from structure_configured
    where rule_id is not null
    union
    select
        qmgr_name,
        rule_id
    from queue_configured
),

unjudged as (
    select
        qmgr_days.qmgr_name,
        qmgr_days.advisory_date,
        array_join(array_sort(collect_list(unjudgeable_rules.rule_id)), ',') as unjudged_rule_ids,
        array_join(
            array_sort(collect_list(
                format_string('%s: %s', unjudgeable_rules.rule_id, unjudgeable_rules.required_input)
            )),
            '; '
        ) as unjudged_rules
    from qmgr_days
    inner join unjudgeable_rules
        on
            unjudgeable_rules.evaluation_status <> 'needs site configuration'
            or unjudgeable_rules.rule_id not in ({{ "'" ~ structure_settings.keys() | join("', '") ~ "'" }})
            or qmgr_days.qsg_name is not null
    left join class_3_days
        on
            qmgr_days.qmgr_name = class_3_days.qmgr_name
            and qmgr_days.advisory_date = class_3_days.advisory_date
    left join configured
        on
            qmgr_days.qmgr_name = configured.qmgr_name
            and unjudgeable_rules.rule_id = configured.rule_id
    where
        unjudgeable_rules.evaluation_status = 'not possible from SMF'
        or (unjudgeable_rules.evaluation_status = 'needs class 3 accounting' and class_3_days.qmgr_name is null)
        or (unjudgeable_rules.evaluation_status = 'needs site configuration' and configured.qmgr_name is null)
    group by qmgr_days.qmgr_name, qmgr_days.advisory_date
),

scored as (
    select
        *,
        case severity when 'critical' then 100 when 'warning' then 10 else 1 end as severity_score
    from advisories
),

-- Worst intervals of a queue manager: advisories grouped by the interval they start in.
qmgr_intervals as (
    select
        qmgr_name,
        advisory_date,
        interval_start_at,
        sum(severity_score) as score,
        count_if(severity = 'critical') as critical,
        count_if(severity = 'warning') as warning,
        count_if(severity = 'info') as info,
        array_join(array_sort(collect_set(rule_id)), ',') as rule_ids
    from scored
    group by qmgr_name, advisory_date, interval_start_at
),

-- Worst intervals of a QSG: its members' advisories side by side (interval start rounded like the facts).
qsg_intervals as (
    select
        qsg_name,
        advisory_date,
        {{ align_timestamp('interval_start_at') }} as interval_start_at,
        sum(severity_score) as score,
        count_if(severity = 'critical') as critical,
        count_if(severity = 'warning') as warning,
        count_if(severity = 'info') as info,
        array_join(array_sort(collect_set(concat(rule_id, '@', qmgr_name))), ',') as rule_ids
    from scored
    where qsg_name is not null
    group by qsg_name, advisory_date, {{ align_timestamp('interval_start_at') }}
),

ranked_qmgr_intervals as (
    select
        'queue_manager' as summary_level,
        qmgr_name as summary_name,
        advisory_date,
        interval_start_at,
        score,
        critical,
        warning,
        info,
        rule_ids,
        row_number() over (
            partition by qmgr_name, advisory_date order by score desc, interval_start_at asc
        ) as worst_rank
    from qmgr_intervals
    union all
    select
        'queue_sharing_group' as summary_level,
        qsg_name as summary_name,
        advisory_date,
        interval_start_at,
        score,
        critical,
        warning,
        info,
        rule_ids,
        row_number() over (
            partition by qsg_name, advisory_date order by score desc, interval_start_at asc
        ) as worst_rank
    from qsg_intervals
),

worst as (
    select
        summary_level,
        summary_name,
        advisory_date,
        min_by(interval_start_at, worst_rank) as worst_interval_start_at,
        min_by(score, worst_rank) as worst_interval_score,
        min_by(rule_ids, worst_rank) as worst_interval_rule_ids,
        array_join(
            transform(
                array_sort(collect_list(
                    case when worst_rank <= 3 then struct(worst_rank, interval_start_at, critical, warning, info) end
                )),
                x -> format_string(
                    '%s (%d critical, %d warning, %d info)',
                    date_format(x.interval_start_at, "yyyy-MM-dd'T'HH:mm'Z'"), x.critical, x.warning, x.info
                )
            ),
            '; '
        ) as worst_intervals
    from ranked_qmgr_intervals
    group by summary_level, summary_name, advisory_date
),

-- Every queue manager day, and every QSG day (its members' days).
days as (
    select
        'queue_manager' as summary_level,
        qmgr_name as summary_name,
        qmgr_name,
        qsg_name,
        advisory_date,
        statistics_intervals,
        1 as queue_managers
    from qmgr_days
    union all
    select
        'queue_sharing_group' as summary_level,
        qsg_name as summary_name,
        cast(null as string) as qmgr_name,
        qsg_name,
        advisory_date,
        sum(statistics_intervals) as statistics_intervals,
        count(*) as queue_managers
    from qmgr_days
    where qsg_name is not null
    group by qsg_name, advisory_date
),

counts as (
    select
        'queue_manager' as summary_level,
        qmgr_name as summary_name,
        advisory_date,
        count_if(severity = 'critical') as critical_advisories,
        count_if(severity = 'warning') as warning_advisories,
        count_if(severity = 'info') as info_advisories,
        count(distinct concat(object_type, ':', object_name)) as objects_with_advisories,
        array_join(array_sort(collect_set(rule_id)), ',') as rules_fired
    from advisories
    group by qmgr_name, advisory_date
    union all
    select
        'queue_sharing_group' as summary_level,
        qsg_name as summary_name,
        advisory_date,
        count_if(severity = 'critical') as critical_advisories,
        count_if(severity = 'warning') as warning_advisories,
        count_if(severity = 'info') as info_advisories,
        count(distinct concat(qmgr_name, ':', object_type, ':', object_name)) as objects_with_advisories,
        array_join(array_sort(collect_set(rule_id)), ',') as rules_fired
    from advisories
    where qsg_name is not null
    group by qsg_name, advisory_date
),

final as (
    select
        {{ surrogate_key(['days.summary_level', 'days.summary_name', 'days.advisory_date']) }} as daily_summary_key,
        days.summary_level,
        days.qmgr_name,
        days.qsg_name,
        days.advisory_date,
        days.queue_managers,
        days.statistics_intervals,
        coalesce(counts.critical_advisories, 0) as critical_advisories,
        coalesce(counts.warning_advisories, 0) as warning_advisories,
        coalesce(counts.info_advisories, 0) as info_advisories,
        coalesce(counts.critical_advisories + counts.warning_advisories + counts.info_advisories, 0)
            as total_advisories,
        coalesce(counts.objects_with_advisories, 0) as objects_with_advisories,
        counts.rules_fired,
        worst.worst_interval_start_at,
        worst.worst_interval_score,
        worst.worst_interval_rule_ids,
        worst.worst_intervals,
        unjudged.unjudged_rule_ids,
        unjudged.unjudged_rules
    from days
    left join counts
        on
            days.summary_level = counts.summary_level
            and days.summary_name = counts.summary_name
            and days.advisory_date = counts.advisory_date
    left join worst
        on
            days.summary_level = worst.summary_level
            and days.summary_name = worst.summary_name
            and days.advisory_date = worst.advisory_date
    left join unjudged
        on
            days.summary_level = 'queue_manager'
            and days.qmgr_name = unjudged.qmgr_name
            and days.advisory_date = unjudged.advisory_date
)

select * from final
