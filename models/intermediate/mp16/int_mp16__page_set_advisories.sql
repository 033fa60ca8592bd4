-- MP16 page set rules PS01-PS04 on the page set statistics (QIS1, SMF 115
-- subtype 201). No mart holds them yet, so they are read from staging with the queue manager's QSG.
-- A page set's "previous interval" is its own previous row when that interval ends where this one
-- starts (aligned). PS02 fires when the page set says it expanded in the interval (QIS1EXPF) or
-- its expansion count since restart (QIS1EXPN) grew since the previous interval. PS04 needs
-- min_volume read I/Os (an average over a handful of reads says nothing). PS03 escalates to critical
-- when the page set cannot expand: its EXPAND method, which SMF does not record, is NONE in the site
-- configuration (seed site_config_page_sets or var mp16_page_set_config; most specific row wins).
-- Incremental (insert_overwrite by interval_date, macro file mp16_incremental): a run judges the
-- dates from the first one the loads changed, reading the day before them for each page set's
-- previous interval (an interval is at most a day long: STATIME <= 1440 minutes).
-- Grain: one row per rule x page set x interval that fires.
{%- set mp16 = mp16_rule_parameters() %}
{%- set scope = mp16_judgement_scope(mp16) %}

with

page_sets as (
    select * from {{ ref('stg_smf__qis1') }}
    where {{ mp16_judged_dates(scope, days_before=1) }}
),

qmgr_qsg as (
    select * from {{ ref('int_smf__qmgr_qsg') }}
),

page_set_config as (
    {{ mp16_site_config(
        'site_config_page_sets', 'mp16_page_set_config',
        dict(qmgr_name='string', page_set_id='string', expand_method='string')
    ) }}
),

page_set_keys as (
    select distinct
        qmgr_name,
        page_set_id
    from page_sets
),

-- The most specific configured expansion method of each page set (named queue manager and page set
-- first, a var row before a seed row).
page_set_expansion as (
    select
        page_sets.qmgr_name,
        page_sets.page_set_id,
        max_by(
            upper(trim(page_set_config.expand_method)),
            (case when page_set_config.qmgr_name != '*' then 4 else 0 end)
            + (case when page_set_config.page_set_id != '*' then 2 else 0 end)
            + (case when page_set_config.from_var then 1 else 0 end)
        ) as expand_method
    from page_set_keys as page_sets
    inner join page_set_config
        on
            (page_sets.qmgr_name = page_set_config.qmgr_name or page_set_config.qmgr_name = '*')
            and (
                cast(page_sets.page_set_id as string) = page_set_config.page_set_id
                or page_set_config.page_set_id = '*'
            )
    where page_set_config.expand_method is not null
    group by page_sets.qmgr_name, page_sets.page_set_id
),

stats as (
    select
        page_sets.qmgr_name,
        qmgr_qsg.qsg_name,
        page_sets.page_set_id,
        page_sets.buffer_pool_id,
        page_sets.interval_start_at,
        page_sets.interval_end_at,
        page_sets.interval_date,
        cast(page_sets.total_pages as double) as total_pages,
        cast(page_sets.unused_pages as double) as unused_pages,
        cast(page_sets.full_count as double) as full_count,
        cast(page_sets.expansions_since_restart as double) as expansions_since_restart,
        page_sets.is_expanded_in_interval,
        page_set_expansion.expand_method,
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
    left join page_set_expansion
        on
            page_sets.qmgr_name = page_set_expansion.qmgr_name
            and page_sets.page_set_id = page_set_expansion.page_set_id
    window page_set_history as (
        partition by page_sets.qmgr_name, page_sets.page_set_id order by page_sets.interval_start_at
    )
),

levels as (
    select
        *,
        {{ mp16_severity(mp16, 'PS01', 'full_count') }} as ps01_level,
        case
            when coalesce(is_expanded_in_interval, false) or follows_previous
                then {{ mp16_severity(
                    mp16, 'PS02',
                    'greatest(case when follows_previous then expansions_in_interval else 0 end,'
                    ~ ' case when is_expanded_in_interval then 1 else 0 end)'
                ) }}
        end as ps02_level,
        case
            when {{ mp16_severity(mp16, 'PS03', 'used_pct') }} is not null and expand_method = 'NONE'
                then 'escalation'
            else {{ mp16_severity(mp16, 'PS03', 'used_pct') }}
        end as ps03_level,
        case
            when read_io_count >= {{ mp16_threshold(mp16, 'PS04', 'min_volume') }}
                then {{ mp16_severity(mp16, 'PS04', 'avg_read_io_us') }}
        end as ps04_level
    from stats
),

final as (
    {% call mp16_fired_rows('levels', 'page_set', 'cast(levels.page_set_id as string)', date_column='interval_date') %}
            {{ mp16_rule_firing(
                mp16, 'PS01', 'full_count',
                "format_string('QIS1FULL %d: the page set was full (puts failed with 2192)', cast(full_count as bigint))"
            ) }},
            {{ mp16_rule_firing(
                mp16, 'PS02',
                'greatest(case when follows_previous then expansions_in_interval else 0 end,'
                ~ ' case when is_expanded_in_interval then 1 else 0 end)',
                "format_string('the page set expanded in the interval (QIS1EXPF %s; QIS1EXPN %d, %s)',"
                ~ " case when is_expanded_in_interval then 'set' else 'not set' end,"
                ~ " cast(expansions_since_restart as bigint), case when follows_previous then"
                ~ " format_string('%d before', cast(expansions_since_restart - expansions_in_interval as bigint))"
                ~ " else 'no previous interval' end)",
                "'previous interval'"
            ) }},
            {{ mp16_firing(
                'PS03',
                "case when ps03_level = 'escalation' then " ~ mp16_rule_text(mp16, 'PS03', 'escalation_severity')
                ~ " else ps03_level end",
                'ps03_level', 'used_pct',
                "case when ps03_level = 'escalation' then " ~ mp16_threshold(mp16, 'PS03', 'escalation')
                ~ " else " ~ mp16_severity_threshold(mp16, 'PS03', 'ps03_level') ~ " end",
                "format_string('%.1f %% used (%d of %d pages unused)%s', used_pct, cast(unused_pages as bigint),"
                ~ " cast(total_pages as bigint), case when ps03_level = 'escalation'"
                ~ " then ' and the page set cannot expand (EXPAND(NONE) in the site configuration)' else '' end)"
            ) }},
            {{ mp16_rule_firing(
                mp16, 'PS04', 'avg_read_io_us',
                "format_string('%.0f us per page set read I/O over %d reads', avg_read_io_us,"
                ~ " cast(read_io_count as bigint))"
            ) }}
    {% endcall %}
)

-- The day before the dates judged was read as context only.
select * from final
where severity is not null and {{ mp16_judged_dates(scope) }}
