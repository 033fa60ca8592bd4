-- Coupling facility structure statistics of a whole queue-sharing group on the QSG's interval grid
-- (README "QSG roll-ups: interval grid and coverage"): every queue manager reports its own requests
-- to a shared structure, so each member interval's counts and times are apportioned to the grid
-- slots it overlaps and summed over the members; the structure's peak use (entries, elements) is the
-- largest any overlapping member interval saw. Ratios are recomputed from the sums, rates are the
-- sums over the slot's length. Coverage columns as for the shared queues. A queue manager outside
-- any QSG uses no CF structure: none of its rows are here.
-- Grain: one row per queue-sharing group x CF structure x grid slot.
{%- set grid = qsg_grid_seconds() %}
{%- set counters = qsg_rollup_counters('cf_structure') %}

with

member_stats as (
    select
        *,
        unix_seconds(aligned_interval_start_at) as member_start_s,
        unix_seconds(aligned_interval_end_at) as member_end_s
    from {{ ref('int_cf_structure_stats__derived') }}
    where qsg_name is not null and aligned_interval_end_at > aligned_interval_start_at
),

member_slots as (
    select
        member_stats.*,
        {{ qsg_grid_slots('member_stats.member_start_s', 'member_stats.member_end_s') }} as slot_start_s
    from member_stats
),

-- Each member interval cut at the slot boundaries it crosses.
member_pieces as (
    select
        *,
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

per_member as (
    select
        qsg_name,
        structure_name,
        slot_start_s,
        qmgr_name,
        least(sum(overlap_seconds), {{ grid }}) as covered_seconds,
        bool_or(requests is not null) as has_counters,
        bool_or(overlap_share < 1) as is_apportioned
    from member_slices
    group by qsg_name, structure_name, slot_start_s, qmgr_name
),

coverage as (
    select
        qsg_name,
        structure_name,
        slot_start_s,
        count(*) as qmgrs_reporting,
        count_if(has_counters) as qmgrs_with_counters,
        count_if(is_apportioned) as qmgrs_apportioned,
        sum(covered_seconds) as covered_member_seconds,
        array_join(array_sort(collect_list(qmgr_name)), ',') as reporting_qmgr_names
    from per_member
    group by qsg_name, structure_name, slot_start_s
),

rolled_up as (
    select
        qsg_name,
        structure_name,
        slot_start_s,
        max(cf_structure_key) as cf_structure_key,
        {%- for counter in counters %}
            sum({{ counter }} * overlap_share) as {{ counter }},
        {%- endfor %}
        max(entries_in_use_max) as entries_in_use_max,
        max(elements_in_use_max) as elements_in_use_max,
        max(loaded_at) as loaded_at
    from member_slices
    group by qsg_name, structure_name, slot_start_s
),

final as (
    select
        {{ surrogate_key(['rolled_up.qsg_name', 'rolled_up.structure_name', 'rolled_up.slot_start_s']) }}
            as cf_structure_stats_key,
        rolled_up.cf_structure_key,
        rolled_up.qsg_name,
        rolled_up.structure_name,
        grid.interval_start_at,
        grid.interval_end_at,
        cast({{ grid }} as double) as interval_seconds,
        grid.qmgrs_expected,
        coverage.qmgrs_reporting,
        coverage.qmgrs_with_counters,
        grid.qmgrs_active,
        coverage.qmgrs_apportioned,
        coverage.covered_member_seconds,
        grid.expected_member_seconds,
        coverage.covered_member_seconds / grid.expected_member_seconds as coverage_ratio,
        coverage.covered_member_seconds = grid.expected_member_seconds
        and coverage.qmgrs_with_counters = grid.qmgrs_expected as is_complete,
        coverage.reporting_qmgr_names,
        {%- for counter in counters %}
            rolled_up.{{ counter }},
        {%- endfor %}
        rolled_up.entries_in_use_max,
        rolled_up.elements_in_use_max,
        100 * {{ safe_divide('rolled_up.redrives', 'rolled_up.requests') }} as redrive_pct,
        {{ safe_divide('rolled_up.request_time_us', 'rolled_up.requests') }} as avg_service_time_us,
        rolled_up.requests / {{ grid }} as requests_per_second,
        rolled_up.loaded_at,
        grid.interval_date
    from rolled_up
    inner join coverage
        on
            rolled_up.qsg_name = coverage.qsg_name
            and rolled_up.structure_name = coverage.structure_name
            and rolled_up.slot_start_s = coverage.slot_start_s
    inner join {{ ref('int_smf__qsg_grid_members') }} as grid
        on rolled_up.qsg_name = grid.qsg_name and rolled_up.slot_start_s = grid.slot_start_s
)

select * from final
