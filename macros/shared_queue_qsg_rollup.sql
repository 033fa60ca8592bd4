{#- The shared-queue QSG roll-up (model int_shared_queue_stats__rolled_up_to_qsg says how) as one
    statement, over the member rows whose interval_date meets `member_dates` (a SQL condition; all by
    default). The view rolls up everything; the incremental fact fct_shared_queue_qsg_stats only the
    members of the dates it rebuilds (and of the day before, whose intervals may end in them), so
    a new day does not read the queue statistics of every earlier one. -#}
{% macro shared_queue_qsg_rollup(member_dates='true') -%}
    {%- set grid = qsg_grid_seconds() %}
    {%- set counters = qsg_rollup_counters('shared_queue') %}

with

shared_queue_stats as (
    select
        *,
        unix_seconds(aligned_interval_start_at) as member_start_s,
        unix_seconds(aligned_interval_end_at) as member_end_s
    from {{ ref('int_queue_stats__partial_rules_applied') }}
    where
        is_shared and qsg_name is not null and aligned_interval_end_at > aligned_interval_start_at
        and ({{ member_dates }})
),

member_slots as (
    select
        shared_queue_stats.*,
        {{ qsg_grid_slots('shared_queue_stats.member_start_s', 'shared_queue_stats.member_end_s') }} as slot_start_s
    from shared_queue_stats
),

-- Each member interval cut at the slot boundaries it crosses.
member_pieces as (
    select
        *,
        member_end_s > slot_start_s and member_end_s <= slot_start_s + {{ grid }} as ends_in_slot,
        {{ qsg_grid_overlap_seconds('member_start_s', 'member_end_s', 'slot_start_s') }} as overlap_seconds
    from member_slots
),

-- The share of the interval's counters that falls in the slot (a uniform rate inside the interval).
member_slices as (
    select
        *,
        overlap_seconds / (member_end_s - member_start_s) as overlap_share
    from member_pieces
),

-- Readings at collection time: each member's newest interval ending in the slot.
collected as (
    select
        qsg_name,
        queue_name,
        slot_start_s,
        max_by(depth_current, case when depth_current is not null then record_created_at end) as depth_current,
        max(oldest_msg_age_seconds) as oldest_msg_age_seconds,
        sum(input_handles_open) as input_handles_open,
        sum(output_handles_open) as output_handles_open
    from (
        select
            *,
            row_number() over (
                partition by qsg_name, queue_name, slot_start_s, qmgr_name order by member_end_s desc
            ) as newest_in_slot
        from member_slices
        where ends_in_slot
    ) as ranked
    where newest_in_slot = 1
    group by qsg_name, queue_name, slot_start_s
),

per_member as (
    select
        qsg_name,
        queue_name,
        slot_start_s,
        qmgr_name,
        least(sum(overlap_seconds), {{ grid }}) as covered_seconds,
        bool_or(msgs_in is not null) as has_counters,
        bool_or(overlap_share < 1) as is_apportioned,
        bool_or(is_partial) as is_partial
    from member_slices
    group by qsg_name, queue_name, slot_start_s, qmgr_name
),

coverage as (
    select
        qsg_name,
        queue_name,
        slot_start_s,
        count(*) as qmgrs_reporting,
        count_if(has_counters) as qmgrs_with_counters,
        count_if(is_apportioned) as qmgrs_apportioned,
        count_if(is_partial) as qmgrs_partial,
        sum(covered_seconds) as covered_member_seconds,
        array_join(array_sort(collect_list(qmgr_name)), ',') as reporting_qmgr_names
    from per_member
    group by qsg_name, queue_name, slot_start_s
),

rolled_up as (
    select
        qsg_name,
        queue_name,
        slot_start_s,
        min(interval_start_at) as first_interval_start_at,
        max(interval_end_at) as last_interval_end_at,
        max(cf_structure_name) as cf_structure_name,
        bool_or(is_partial) as has_partial,
    {%- for counter in counters %}
            sum({{ counter }} * overlap_share) as {{ counter }},
    {%- endfor %}
        max(depth_high) as depth_high_max,
        min(depth_low) as depth_low_min,
        max(loaded_at) as loaded_at
    from member_slices
    group by qsg_name, queue_name, slot_start_s
),

final as (
    select
        {{ surrogate_key(['rolled_up.qsg_name', 'rolled_up.queue_name', 'rolled_up.slot_start_s']) }}
            as shared_queue_qsg_stats_key,
        rolled_up.qsg_name,
        rolled_up.queue_name,
        rolled_up.cf_structure_name,
        grid.interval_start_at,
        grid.interval_end_at,
        cast({{ grid }} as double) as interval_seconds,
        rolled_up.first_interval_start_at,
        rolled_up.last_interval_end_at,
        grid.qmgrs_expected,
        coverage.qmgrs_reporting,
        coverage.qmgrs_with_counters,
        grid.qmgrs_active,
        coverage.qmgrs_partial,
        coverage.qmgrs_apportioned,
        coverage.covered_member_seconds,
        grid.expected_member_seconds,
        coverage.covered_member_seconds / grid.expected_member_seconds as coverage_ratio,
        coverage.covered_member_seconds = grid.expected_member_seconds
        and coverage.qmgrs_with_counters = grid.qmgrs_expected as is_complete,
        rolled_up.has_partial,
        coverage.reporting_qmgr_names,
    {%- for counter in counters %}
            rolled_up.{{ counter }},
    {%- endfor %}
        rolled_up.depth_high_max,
        -- Exact only when one queue manager saw every change of depth within this very slot.
        coverage.qmgrs_reporting > 1 or rolled_up.has_partial or coverage.qmgrs_apportioned > 0
            as is_depth_high_approximate,
        rolled_up.depth_low_min,
        collected.depth_current,
        collected.oldest_msg_age_seconds,
        collected.input_handles_open,
        collected.output_handles_open,
        rolled_up.msgs_in / {{ grid }} as msgs_in_per_second,
        rolled_up.msgs_out / {{ grid }} as msgs_out_per_second,
        (rolled_up.failed_puts + rolled_up.failed_put1s + rolled_up.hard_failed_gets) / {{ grid }}
            as failures_per_second,
        rolled_up.gets_no_msg_available / {{ grid }} as gets_no_msg_available_per_second,
        rolled_up.loaded_at,
        grid.interval_date
    from rolled_up
    inner join coverage
        on
            rolled_up.qsg_name = coverage.qsg_name
            and rolled_up.queue_name = coverage.queue_name
            and rolled_up.slot_start_s = coverage.slot_start_s
    inner join {{ ref('int_smf__qsg_grid_members') }} as grid
        on rolled_up.qsg_name = grid.qsg_name and rolled_up.slot_start_s = grid.slot_start_s
    left join collected
        on
            rolled_up.qsg_name = collected.qsg_name
            and rolled_up.queue_name = collected.queue_name
            and rolled_up.slot_start_s = collected.slot_start_s
)

select * from final
{%- endmacro %}
