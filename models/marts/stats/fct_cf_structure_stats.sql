-- Coupling facility structures across their queue-sharing group: requests and redrives apportioned to
-- the QSG's interval grid and summed over the queue managers, redrive % and average service time
-- recomputed from the sums, with how complete each row is (coverage columns).
-- Grain: one row per queue-sharing group x CF structure x grid slot (var qsg_grid_seconds).

with

qsg_stats as (
    {{ select_changed_interval_dates(ref('int_cf_structure_stats__rolled_up_to_qsg')) }}
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
        qmgrs_expected,
        qmgrs_reporting,
        qmgrs_with_counters,
        qmgrs_active,
        qmgrs_apportioned,
        covered_member_seconds,
        expected_member_seconds,
        coverage_ratio,
        is_complete,
        reporting_qmgr_names,
        requests,
        single_entry_requests,
        multi_entry_requests,
        redrives,
        redrive_pct,
        request_time_us,
        avg_service_time_us,
        requests_per_second,
        structure_full_count,
        entries_in_use_max,
        elements_in_use_max,
        loaded_at,
        interval_date
    from qsg_stats
)

select * from final
