{#- A QSG roll-up on the QSG's interval grid (README "QSG roll-ups: interval grid and coverage") as
    one statement, for a kind of shared object: 'shared_queue' (model
    int_shared_queue_stats__rolled_up_to_qsg) or 'cf_structure' (int_cf_structure_stats__rolled_up_to_qsg);
    those models say what each column means. Every member interval is cut at the grid slots it
    crosses, its counters (macro qsg_rollup_counters) apportioned by overlap and summed over the
    members, and its coverage counted against the members expected (int_smf__qsg_grid_members).
    What differs by kind is in `spec` below: the member rows, the object's name column, the column
    that tells a release with the counters, whether members can be partial (shared queues: RESET
    QSTATS), the readings taken at collection time, and the kind's own peaks and ratios.
    `member_dates` (a SQL condition on the member rows' interval_date; all by default) lets an
    incremental fact roll up only the members of the dates it rebuilds. -#}
{% macro qsg_rollup(kind, member_dates='true') -%}
    {%- set grid = qsg_grid_seconds() %}
    {%- set counters = qsg_rollup_counters(kind) %}
    {#- Per kind: the member rows (a model), the filter on them, the object's name column, the roll-up's
        key, the counter whose presence tells a release with the counters, whether members can be
        partial, whether readings at collection time are kept; then `alias: aggregate over the slot's
        member slices` in the roll-up's column order (identity before the QSG name, object after the
        object's name, span after the grid times, peaks after the counters) and `alias: expression
        on the roll-up` for the kind's measures (a shared queue's peak depth is exact only when one
        queue manager saw every change of depth within the very slot). -#}
    {%- set specs = {
        'shared_queue': {
            'members': 'int_queue_stats__partial_rules_applied',
            'member_filter': 'is_shared',
            'object': 'queue_name',
            'key': 'shared_queue_qsg_stats_key',
            'counter_probe': 'msgs_in',
            'tracks_partial': true,
            'readings': true,
            'identity': {},
            'object_columns': {'cf_structure_name': 'max(cf_structure_name)'},
            'span': {
                'first_interval_start_at': 'min(interval_start_at)',
                'last_interval_end_at': 'max(interval_end_at)',
            },
            'peaks': {'depth_high_max': 'max(depth_high)', 'depth_low_min': 'min(depth_low)'},
            'measures': {
                'depth_high_max': 'rolled_up.depth_high_max',
                'is_depth_high_approximate':
                    'coverage.qmgrs_reporting > 1 or rolled_up.has_partial or coverage.qmgrs_apportioned > 0',
                'depth_low_min': 'rolled_up.depth_low_min',
                'depth_current': 'collected.depth_current',
                'oldest_msg_age_seconds': 'collected.oldest_msg_age_seconds',
                'input_handles_open': 'collected.input_handles_open',
                'output_handles_open': 'collected.output_handles_open',
                'msgs_in_per_second': 'rolled_up.msgs_in / ' ~ grid,
                'msgs_out_per_second': 'rolled_up.msgs_out / ' ~ grid,
                'failures_per_second':
                    '(rolled_up.failed_puts + rolled_up.failed_put1s + rolled_up.hard_failed_gets) / ' ~ grid,
                'gets_no_msg_available_per_second': 'rolled_up.gets_no_msg_available / ' ~ grid,
            },
        },
        'cf_structure': {
            'members': 'int_cf_structure_stats__derived',
            'member_filter': 'true',
            'object': 'structure_name',
            'key': 'cf_structure_stats_key',
            'counter_probe': 'requests',
            'tracks_partial': false,
            'readings': false,
            'identity': {'cf_structure_key': 'max(cf_structure_key)'},
            'object_columns': {},
            'span': {},
            'peaks': {'entries_in_use_max': 'max(entries_in_use_max)', 'elements_in_use_max': 'max(elements_in_use_max)'},
            'measures': {
                'entries_in_use_max': 'rolled_up.entries_in_use_max',
                'elements_in_use_max': 'rolled_up.elements_in_use_max',
                'redrive_pct': '100 * ' ~ safe_divide('rolled_up.redrives', 'rolled_up.requests'),
                'avg_service_time_us': safe_divide('rolled_up.request_time_us', 'rolled_up.requests'),
                'requests_per_second': 'rolled_up.requests / ' ~ grid,
            },
        },
    } %}
    {%- set spec = specs[kind] %}
    {%- set object = spec.object %}
    {%- set slot_keys = 'qsg_name, ' ~ object ~ ', slot_start_s' %}

with

member_stats as (
    select
        *,
        unix_seconds(aligned_interval_start_at) as member_start_s,
        unix_seconds(aligned_interval_end_at) as member_end_s
    from {{ ref(spec.members) }}
    where
        {{ spec.member_filter }} and qsg_name is not null and aligned_interval_end_at > aligned_interval_start_at
        and ({{ member_dates }})
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
    {%- if spec.readings %}

-- Readings at collection time: each member's newest interval ending in the slot.
collected as (
    select
        {{ slot_keys }},
        max_by(depth_current, case when depth_current is not null then record_created_at end) as depth_current,
        max(oldest_msg_age_seconds) as oldest_msg_age_seconds,
        sum(input_handles_open) as input_handles_open,
        sum(output_handles_open) as output_handles_open
    from (
        select
            *,
            row_number() over (
                partition by {{ slot_keys }}, qmgr_name order by member_end_s desc
            ) as newest_in_slot
        from member_slices
        where ends_in_slot
    ) as ranked
    where newest_in_slot = 1
    group by {{ slot_keys }}
),
    {%- endif %}

per_member as (
    select
        {{ slot_keys }},
        qmgr_name,
        least(sum(overlap_seconds), {{ grid }}) as covered_seconds,
        bool_or({{ spec.counter_probe }} is not null) as has_counters,
        bool_or(overlap_share < 1) as is_apportioned
    {%- if spec.tracks_partial %},
        bool_or(is_partial) as is_partial
    {%- endif %}
    from member_slices
    group by {{ slot_keys }}, qmgr_name
),

coverage as (
    select
        {{ slot_keys }},
        count(*) as qmgrs_reporting,
        count_if(has_counters) as qmgrs_with_counters,
        count_if(is_apportioned) as qmgrs_apportioned,
    {%- if spec.tracks_partial %}
        count_if(is_partial) as qmgrs_partial,
    {%- endif %}
        sum(covered_seconds) as covered_member_seconds,
        array_join(array_sort(collect_list(qmgr_name)), ',') as reporting_qmgr_names
    from per_member
    group by {{ slot_keys }}
),

rolled_up as (
    select
        {{ slot_keys }},
        {%- for alias, aggregate in (spec.identity.items() | list) + (spec.object_columns.items() | list)
            + (spec.span.items() | list) %}
        {{ aggregate }} as {{ alias }},
    {%- endfor %}
    {%- if spec.tracks_partial %}
        bool_or(is_partial) as has_partial,
    {%- endif %}
    {%- for counter in counters %}
        sum({{ counter }} * overlap_share) as {{ counter }},
    {%- endfor %}
    {%- for alias, aggregate in spec.peaks.items() %}
        {{ aggregate }} as {{ alias }},
    {%- endfor %}
        max(loaded_at) as loaded_at
    from member_slices
    group by {{ slot_keys }}
),

final as (
    select
        {{ surrogate_key(['rolled_up.qsg_name', 'rolled_up.' ~ object, 'rolled_up.slot_start_s']) }} as {{ spec.key }},
    {%- for alias in spec.identity %}
        rolled_up.{{ alias }},
    {%- endfor %}
        rolled_up.qsg_name,
        rolled_up.{{ object }},
    {%- for alias in spec.object_columns %}
        rolled_up.{{ alias }},
    {%- endfor %}
        grid.interval_start_at,
        grid.interval_end_at,
        cast({{ grid }} as double) as interval_seconds,
    {%- for alias in spec.span %}
        rolled_up.{{ alias }},
    {%- endfor %}
        grid.qmgrs_expected,
        coverage.qmgrs_reporting,
        coverage.qmgrs_with_counters,
        grid.qmgrs_active,
    {%- if spec.tracks_partial %}
        coverage.qmgrs_partial,
    {%- endif %}
        coverage.qmgrs_apportioned,
        coverage.covered_member_seconds,
        grid.expected_member_seconds,
        coverage.covered_member_seconds / grid.expected_member_seconds as coverage_ratio,
        coverage.covered_member_seconds = grid.expected_member_seconds
        and coverage.qmgrs_with_counters = grid.qmgrs_expected as is_complete,
    {%- if spec.tracks_partial %}
        rolled_up.has_partial,
    {%- endif %}
        coverage.reporting_qmgr_names,
    {%- for counter in counters %}
        rolled_up.{{ counter }},
    {%- endfor %}
    {%- for alias, expression in spec.measures.items() %}
        {{ expression }} as {{ alias }},
    {%- endfor %}
        rolled_up.loaded_at,
        grid.interval_date
    from rolled_up
    inner join coverage
        on
            rolled_up.qsg_name = coverage.qsg_name
            and rolled_up.{{ object }} = coverage.{{ object }}
            and rolled_up.slot_start_s = coverage.slot_start_s
    inner join {{ ref('int_smf__qsg_grid_members') }} as grid
        on rolled_up.qsg_name = grid.qsg_name and rolled_up.slot_start_s = grid.slot_start_s
    {%- if spec.readings %}
    left join collected
        on
            rolled_up.qsg_name = collected.qsg_name
            and rolled_up.{{ object }} = collected.{{ object }}
            and rolled_up.slot_start_s = collected.slot_start_s
    {%- endif %}
)

select * from final
{%- endmacro %}
