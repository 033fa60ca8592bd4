-- Page set statistics (QIS1, SMF 115 subtype 201): pages used of total, persistent and non-persistent
-- pages, expansions and full conditions, read I/O (MP16 "Page sets" and rules PS01-PS04).
-- Expansions in the interval: the growth of the count since restart (QIS1EXPN) over the page set's
-- previous interval when that one ends where this one starts (aligned); NULL at the first interval
-- and after a restart or a gap (the count starts again).
-- Incremental (insert_overwrite by interval_date): a run rebuilds the dates the loads changed,
-- reading the day before them for each page set's previous interval (an interval is at most a day).
-- Grain: one row per queue manager x page set x statistics interval.
{%- set dates = changed_interval_date_literals(ref('stg_smf__qis1')) if is_incremental() else none %}

with

page_sets as (
    select * from {{ ref('stg_smf__qis1') }}
    {%- if dates %}
        where {{ interval_dates_near(dates, days_before=1) }}
    {%- endif %}
),

qmgr_qsg as (
    select * from {{ ref('int_smf__qmgr_qsg') }}
),

with_previous as (
    select
        *,
        lag(expansions_since_restart) over page_set_history as previous_expansions_since_restart,
        coalesce(
            lag({{ align_timestamp('interval_end_at') }}) over page_set_history
            = {{ align_timestamp('interval_start_at') }},
            false
        ) as follows_previous
    from page_sets
    window page_set_history as (partition by qmgr_name, page_set_id order by interval_start_at)
),

final as (
    select
        page_sets.qis1_key as page_set_stats_key,
        page_sets.qmgr_name,
        qmgr_qsg.qsg_name,
        cast(page_sets.page_set_id as int) as page_set_id,
        cast(page_sets.buffer_pool_id as int) as buffer_pool_id,
        page_sets.interval_start_at,
        page_sets.interval_end_at,
        page_sets.interval_seconds,
        {{ align_timestamp('page_sets.interval_start_at') }} as aligned_interval_start_at,
        {{ align_timestamp('page_sets.interval_end_at') }} as aligned_interval_end_at,
        page_sets.system_id,
        page_sets.mq_version,
        cast(page_sets.total_pages as bigint) as total_pages,
        cast(page_sets.unused_pages as bigint) as unused_pages,
        cast(page_sets.total_pages as bigint) - page_sets.unused_pages as used_pages,
        100 * {{ safe_divide('page_sets.total_pages - page_sets.unused_pages', 'page_sets.total_pages') }}
            as used_pct,
        cast(page_sets.persistent_pages as bigint) as persistent_pages,
        cast(page_sets.nonpersistent_pages as bigint) as nonpersistent_pages,
        cast(page_sets.full_count as bigint) as full_count,
        cast(page_sets.expansions_since_restart as bigint) as expansions_since_restart,
        page_sets.is_expanded_in_interval,
        case
            when
                page_sets.follows_previous
                and page_sets.expansions_since_restart >= page_sets.previous_expansions_since_restart
                then cast(page_sets.expansions_since_restart - page_sets.previous_expansions_since_restart as bigint)
        end as expansions_in_interval,
        cast(page_sets.read_io_count as bigint) as read_ios,
        {{ safe_divide('page_sets.read_io_time_us', 'page_sets.read_io_count') }} as avg_read_io_us,
        page_sets.loaded_at,
        page_sets.interval_date
    from with_previous as page_sets
    left join qmgr_qsg on page_sets.qmgr_name = qmgr_qsg.qmgr_name
    {%- if dates %}
        where page_sets.interval_date in ({{ dates }})
    {%- endif %}
)

select * from final
