-- Every QSG roll-up row is one slot of the QSG's interval grid (never a mix of unlike intervals), and
-- its coverage columns are consistent: members with counters <= reporting <= active <= expected
-- (a member reporting a shared object in a slot wrote statistics in it), covered member-seconds
-- within what the reporting members can cover, coverage_ratio = covered / expected. The sums
-- themselves are reconciled by the gate (mqsmf check --stage marts, quality/checks.py ROLLUPS), from
-- the member facts by another route. Checked on the interval dates of the newest load (var
-- test_scope 'all': every date). Returns the rows that break this.
{%- set grid = qsg_grid_seconds() %}

with

rollups as (
    {%- for fact_model, item_column in [
        ('fct_shared_queue_qsg_stats', 'queue_name'),
        ('fct_cf_structure_stats', 'structure_name'),
    ] %}
        select
            '{{ fact_model }}' as fact_model,
            qsg_name,
            {{ item_column }} as item_name,
            interval_start_at,
            interval_end_at,
            interval_seconds,
            qmgrs_expected,
            qmgrs_active,
            qmgrs_reporting,
            qmgrs_with_counters,
            covered_member_seconds,
            expected_member_seconds,
            coverage_ratio
        from {{ ref(fact_model) }}
        where {{ recently_loaded_dates_condition() }}
        {%- if not loop.last %}
            union all
        {%- endif %}
    {%- endfor %}
)

select *
from rollups
where
    interval_seconds != {{ grid }}
    or unix_seconds(interval_start_at) % {{ grid }} != 0
    or unix_seconds(interval_end_at) - unix_seconds(interval_start_at) != {{ grid }}
    or not qmgrs_with_counters <= qmgrs_reporting
    or not qmgrs_reporting <= qmgrs_active
    or not qmgrs_active <= qmgrs_expected
    or not covered_member_seconds <= qmgrs_reporting * {{ grid }}
    or expected_member_seconds != qmgrs_expected * {{ grid }}
    or abs(coverage_ratio - covered_member_seconds / expected_member_seconds) > 1e-9
