-- Coupling facility structure statistics of a whole queue-sharing group: every queue manager reports
-- its own requests to a shared structure, so counts and times are summed; the structure's peak use
-- (entries, elements) is the largest any queue manager saw. Ratios are recomputed from the sums.
-- Grain: one row per queue-sharing group x CF structure x aligned statistics interval.

with

member_stats as (
    select * from {{ ref('int_cf_structure_stats__derived') }}
),

active_qmgrs as (
    select
        qmgr_qsg.qsg_name,
        intervals.aligned_interval_end_at,
        count(distinct intervals.qmgr_name) as qmgrs_active
    from {{ ref('int_smf__qmgr_intervals') }} as intervals
    inner join {{ ref('int_smf__qmgr_qsg') }} as qmgr_qsg on intervals.qmgr_name = qmgr_qsg.qmgr_name
    where qmgr_qsg.qsg_name is not null
    group by qmgr_qsg.qsg_name, intervals.aligned_interval_end_at
),

rolled_up as (
    select
        qsg_name,
        structure_name,
        aligned_interval_end_at,
        {{ aligned_interval_date('aligned_interval_end_at') }} as interval_date,
        max(cf_structure_key) as cf_structure_key,
        min(aligned_interval_start_at) as aligned_interval_start_at,
        count(distinct qmgr_name) as qmgrs_reporting,
        array_join(array_sort(collect_set(qmgr_name)), ',') as reporting_qmgr_names,
        sum(requests) as requests,
        sum(single_entry_requests) as single_entry_requests,
        sum(multi_entry_requests) as multi_entry_requests,
        sum(redrives) as redrives,
        sum(request_time_us) as request_time_us,
        sum(structure_full_count) as structure_full_count,
        max(entries_in_use_max) as entries_in_use_max,
        max(elements_in_use_max) as elements_in_use_max,
        max(loaded_at) as loaded_at
    from member_stats
    group by qsg_name, structure_name, aligned_interval_end_at
),

final as (
    select
        {{ surrogate_key([
            'rolled_up.qsg_name', 'rolled_up.structure_name', 'unix_micros(rolled_up.aligned_interval_end_at)'
        ]) }} as cf_structure_stats_key,
        rolled_up.cf_structure_key,
        rolled_up.qsg_name,
        rolled_up.structure_name,
        rolled_up.aligned_interval_start_at as interval_start_at,
        rolled_up.aligned_interval_end_at as interval_end_at,
        (unix_micros(rolled_up.aligned_interval_end_at) - unix_micros(rolled_up.aligned_interval_start_at)) / 1e6
            as interval_seconds,
        rolled_up.qmgrs_reporting,
        coalesce(active_qmgrs.qmgrs_active, rolled_up.qmgrs_reporting) as qmgrs_active,
        rolled_up.reporting_qmgr_names,
        rolled_up.requests,
        rolled_up.single_entry_requests,
        rolled_up.multi_entry_requests,
        rolled_up.redrives,
        rolled_up.request_time_us,
        rolled_up.structure_full_count,
        rolled_up.entries_in_use_max,
        rolled_up.elements_in_use_max,
        100 * {{ safe_divide('rolled_up.redrives', 'rolled_up.requests') }} as redrive_pct,
        {{ safe_divide('rolled_up.request_time_us', 'rolled_up.requests') }} as avg_service_time_us,
        rolled_up.loaded_at,
        rolled_up.interval_date
    from rolled_up
    left join active_qmgrs
        on
            rolled_up.qsg_name = active_qmgrs.qsg_name
            and rolled_up.aligned_interval_end_at = active_qmgrs.aligned_interval_end_at
)

select * from final
