-- Every CF structure QSG row must equal the sums (maxima for peak use) of the per-queue-manager rows
-- it rolls up, and every per-queue-manager row must be rolled up somewhere. Returns disagreements.

with

members as (
    select
        qsg_name,
        structure_name,
        aligned_interval_end_at as interval_end_at,
        count(distinct qmgr_name) as qmgrs_reporting,
        sum(requests) as requests,
        sum(redrives) as redrives,
        sum(request_time_us) as request_time_us,
        sum(structure_full_count) as structure_full_count,
        max(entries_in_use_max) as entries_in_use_max,
        max(elements_in_use_max) as elements_in_use_max
    from {{ ref('fct_cf_structure_qmgr_stats') }}
    group by qsg_name, structure_name, aligned_interval_end_at
),

qsg as (
    select
        qsg_name,
        structure_name,
        interval_end_at,
        qmgrs_reporting,
        requests,
        redrives,
        request_time_us,
        structure_full_count,
        entries_in_use_max,
        elements_in_use_max
    from {{ ref('fct_cf_structure_stats') }}
)

select
    coalesce(members.qsg_name, qsg.qsg_name) as qsg_name,
    coalesce(members.structure_name, qsg.structure_name) as structure_name,
    coalesce(members.interval_end_at, qsg.interval_end_at) as interval_end_at
from members
full outer join qsg
    on
        members.qsg_name = qsg.qsg_name
        and members.structure_name = qsg.structure_name
        and members.interval_end_at = qsg.interval_end_at
where
    members.qsg_name is null
    or qsg.qsg_name is null
    or members.qmgrs_reporting != qsg.qmgrs_reporting
    or not (members.requests <=> qsg.requests)
    or not (members.redrives <=> qsg.redrives)
    or not (members.request_time_us <=> qsg.request_time_us)
    or not (members.structure_full_count <=> qsg.structure_full_count)
    or not (members.entries_in_use_max <=> qsg.entries_in_use_max)
    or not (members.elements_in_use_max <=> qsg.elements_in_use_max)
