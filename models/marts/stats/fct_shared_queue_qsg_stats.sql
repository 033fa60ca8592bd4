-- Shared queues across their queue-sharing group: each queue manager reports its own activity (IBM
-- MQ 'Shared queues and queue depth events on z/OS'; 'RESET QSTATS' CMDSCOPE(*) sums the members),
-- so counters are apportioned to the QSG's interval grid and summed, peak depth = max of the
-- per-queue-manager QQSTDPHI (an approximation), with how complete each row is (coverage columns).
-- Grain: one row per queue-sharing group x shared queue x grid slot (var qsg_grid_seconds).
-- Incremental runs roll up only the members of the dates they rebuild (macro qsg_rollup):
-- depends_on: {{ ref('int_queue_stats__partial_rules_applied') }}
-- depends_on: {{ ref('int_smf__qsg_grid_members') }}

with

qsg_stats as (
    {%- if is_incremental() %}
        {%- set dates = changed_interval_date_literals(ref('int_shared_queue_stats__rolled_up_to_qsg')) %}
        -- The members of the dates rebuilt, and those of the day before that end after its midnight.
        select * from (
            {{ qsg_rollup('shared_queue',
                'interval_date in (' ~ dates ~ ') or (date_add(interval_date, 1) in (' ~ dates ~ ')'
                ~ ' and ' ~ utc_date('aligned_interval_end_at') ~ ' > interval_date)'
            ) }}
        ) as rolled_up
        where interval_date in ({{ dates }})
    {%- else %}
        select * from {{ ref('int_shared_queue_stats__rolled_up_to_qsg') }}
    {%- endif %}
),

final as (
    select
        shared_queue_qsg_stats_key,
        qsg_name,
        queue_name,
        cf_structure_name,
        interval_start_at,
        interval_end_at,
        interval_seconds,
        first_interval_start_at,
        last_interval_end_at,
        qmgrs_expected,
        qmgrs_reporting,
        qmgrs_with_counters,
        qmgrs_active,
        qmgrs_partial,
        qmgrs_apportioned,
        covered_member_seconds,
        expected_member_seconds,
        coverage_ratio,
        is_complete,
        has_partial,
        reporting_qmgr_names,
        puts,
        put1s,
        msgs_in,
        msgs_out,
        gets,
        browses,
        persistent_msgs_in,
        nonpersistent_msgs_in,
        msgs_in_bytes,
        get_bytes,
        browse_bytes,
        failed_puts,
        failed_put1s,
        failed_gets,
        gets_no_msg_available,
        gets_truncated_failed,
        hard_failed_gets,
        failed_browses,
        expired_msgs,
        msgs_in_per_second,
        msgs_out_per_second,
        failures_per_second,
        gets_no_msg_available_per_second,
        input_handles_open,
        output_handles_open,
        depth_high_max,
        is_depth_high_approximate,
        depth_low_min,
        depth_current,
        oldest_msg_age_seconds,
        loaded_at,
        interval_date
    from qsg_stats
)

select * from final
