{{ config(materialized='table') }}
-- MP16 page set rules PS01-PS04 (docs/mp16-rules.md 1.2) on the page set statistics (QIS1, SMF 115
-- subtype 201). No mart holds them yet, so they are read from staging with the queue manager's QSG.
-- A page set's "previous interval" is its own previous row when that interval ends where this one
-- starts (aligned).
-- Grain: one row per rule x page set x interval that fires.
{%- set mp16 = mp16_rule_parameters() %}

with

page_sets as (
    select * from {{ ref('stg_smf__qis1') }}
),

qmgr_qsg as (
    select * from {{ ref('int_smf__qmgr_qsg') }}
),

stats as (
    select
        page_sets.qmgr_name,
        qmgr_qsg.qsg_name,
        page_sets.page_set_id,
        page_sets.buffer_pool_id,
        page_sets.interval_start_at,
        page_sets.interval_end_at,
        cast(page_sets.total_pages as double) as total_pages,
        cast(page_sets.unused_pages as double) as unused_pages,
        cast(page_sets.full_count as double) as full_count,
        cast(page_sets.expansions_since_restart as double) as expansions_since_restart,
        page_sets.is_expanded_in_interval,
        cast(page_sets.read_io_count as double) as read_io_count,
        cast(page_sets.read_io_time_us as double) as read_io_time_us,
        100 * {{ safe_divide('page_sets.total_pages - page_sets.unused_pages', 'page_sets.total_pages') }} as used_pct,
        {{ safe_divide('page_sets.read_io_time_us', 'page_sets.read_io_count') }} as avg_read_io_us,
        cast(page_sets.expansions_since_restart as double)
        - lag(page_sets.expansions_since_restart) over page_set_history
            as expansions_in_interval,
        coalesce(
            lag({{ align_timestamp('page_sets.interval_end_at') }}) over page_set_history
            = {{ align_timestamp('page_sets.interval_start_at') }},
            false
        ) as follows_previous
    from page_sets
    left join qmgr_qsg on page_sets.qmgr_name = qmgr_qsg.qmgr_name
    window page_set_history as (
        partition by page_sets.qmgr_name, page_sets.page_set_id order by page_sets.interval_start_at
    )
),

levels as (
    select
        *,
        {{ mp16_severity(mp16, 'PS01', 'full_count') }} as ps01_level,
        case when follows_previous then {{ mp16_severity(mp16, 'PS02', 'expansions_in_interval') }} end as ps02_level,
        {{ mp16_severity(mp16, 'PS03', 'used_pct') }} as ps03_level,
        {{ mp16_severity(mp16, 'PS04', 'avg_read_io_us') }} as ps04_level
    from stats
),

final as (
    select
        firing.rule_id,
        firing.severity,
        firing.threshold_level,
        levels.qmgr_name,
        levels.qsg_name,
        'page_set' as object_type,
        cast(levels.page_set_id as string) as object_name,
        levels.interval_start_at,
        levels.interval_end_at,
        firing.evaluation_window,
        firing.observed_value,
        firing.threshold_value,
        firing.observation
    from levels
        lateral view explode(array(
            {{ mp16_firing(
                'PS01', 'ps01_level', 'ps01_level', 'full_count', mp16_severity_threshold(mp16, 'PS01', 'ps01_level'),
                "format_string('QIS1FULL %d: the page set was full (puts failed with 2192)', cast(full_count as bigint))"
            ) }},
            {{ mp16_firing(
                'PS02', 'ps02_level', 'ps02_level', 'expansions_in_interval',
                mp16_severity_threshold(mp16, 'PS02', 'ps02_level'),
                "format_string('QIS1EXPN %d after %d: the page set expanded in the interval',"
                ~ " cast(expansions_since_restart as bigint),"
                ~ " cast(expansions_since_restart - expansions_in_interval as bigint))",
                "'previous interval'"
            ) }},
            {{ mp16_firing(
                'PS03', 'ps03_level', 'ps03_level', 'used_pct', mp16_severity_threshold(mp16, 'PS03', 'ps03_level'),
                "format_string('%.1f %% used (%d of %d pages unused)', used_pct, cast(unused_pages as bigint),"
                ~ " cast(total_pages as bigint))"
            ) }},
            {{ mp16_firing(
                'PS04', 'ps04_level', 'ps04_level', 'avg_read_io_us', mp16_severity_threshold(mp16, 'PS04', 'ps04_level'),
                "format_string('%.0f us per page set read I/O over %d reads', avg_read_io_us,"
                ~ " cast(read_io_count as bigint))"
            ) }}
        )) firings as firing
)

select * from final
where severity is not null
