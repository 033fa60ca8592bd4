-- Coupling facility structure use by each queue manager: requests, redrives, service times,
-- structure-full conditions, peak entries/elements. fct_cf_structure_stats rolls these up to the QSG.
-- Grain: one row per queue manager x CF structure x statistics interval.

with

cf_stats as (
    {{ select_changed_interval_dates(ref('int_cf_structure_stats__derived')) }}
),

final as (
    select
        cf_structure_qmgr_stats_key,
        cf_structure_key,
        qmgr_name,
        qsg_name,
        structure_name,
        structure_number,
        {{ qmgr_interval_columns() }},
        requests,
        single_entry_requests,
        multi_entry_requests,
        requests_per_second,
        redrives,
        single_entry_redrives,
        multi_entry_redrives,
        redrive_pct,
        single_entry_redrive_pct,
        multi_entry_redrive_pct,
        request_time_us,
        avg_service_time_us,
        single_entry_avg_service_time_us,
        multi_entry_avg_service_time_us,
        cf_time_us_per_second,
        structure_full_count,
        entries_in_use_max,
        elements_in_use_max,
        elements_per_entry,
        loaded_at,
        interval_date
    from cf_stats
)

select * from final
