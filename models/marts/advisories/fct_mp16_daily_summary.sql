-- The analyst's day: per queue manager and per queue-sharing group and UTC day, how many MP16
-- advisories of each severity fired, which rules, and the worst intervals (scored 100 per critical,
-- 10 per warning, 1 per info advisory). Days with statistics but no advisory are listed with zeros.
-- Grain: one row per summary level (queue_manager / queue_sharing_group) x queue manager or QSG x UTC day.

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
        worst.worst_intervals
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
)

select * from final
