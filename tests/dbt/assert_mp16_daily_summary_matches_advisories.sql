-- The daily summary's counts per queue manager and day are those of fct_mp16_advisories, and its
-- QSG rows add up its members. Rows returned are violations.

with

advisories as (
    select
        qmgr_name,
        advisory_date,
        count_if(severity = 'critical') as critical_advisories,
        count_if(severity = 'warning') as warning_advisories,
        count_if(severity = 'info') as info_advisories
    from {{ ref('fct_mp16_advisories') }}
    group by qmgr_name, advisory_date
),

summary as (
    select * from {{ ref('fct_mp16_daily_summary') }}
),

qmgr_summary as (
    select * from summary
    where summary_level = 'queue_manager'
),

qmgr_mismatches as (
    select
        coalesce(qmgr_summary.qmgr_name, advisories.qmgr_name) as summary_name,
        coalesce(qmgr_summary.advisory_date, advisories.advisory_date) as advisory_date
    from qmgr_summary
    full outer join advisories
        on qmgr_summary.qmgr_name = advisories.qmgr_name and qmgr_summary.advisory_date = advisories.advisory_date
    where
        coalesce(qmgr_summary.critical_advisories, -1) != coalesce(advisories.critical_advisories, 0)
        or coalesce(qmgr_summary.warning_advisories, -1) != coalesce(advisories.warning_advisories, 0)
        or coalesce(qmgr_summary.info_advisories, -1) != coalesce(advisories.info_advisories, 0)
),

qsg_mismatches as (
    select
        qsg.qsg_name as summary_name,
        qsg.advisory_date
    from summary as qsg
    inner join summary as member_summary
        on
            qsg.qsg_name = member_summary.qsg_name
            and qsg.advisory_date = member_summary.advisory_date
            and member_summary.summary_level = 'queue_manager'
    where qsg.summary_level = 'queue_sharing_group'
    group by qsg.qsg_name, qsg.advisory_date, qsg.total_advisories, qsg.queue_managers
    having qsg.total_advisories != sum(member_summary.total_advisories) or qsg.queue_managers != count(*)
)

select * from qmgr_mismatches
union all
select * from qsg_mismatches
