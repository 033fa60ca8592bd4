{{ config(materialized='table') }}
-- MP16 buffer pool rules BP01-BP11 (docs/mp16-rules.md 1.1) on fct_buffer_pool_stats, with each
-- pool's role from dim_mp16_buffer_pool_role. Thresholds come from the seed mp16_rules (or the var
-- mp16_thresholds) through mp16_threshold(); conventions per rule are in the seed's evaluation_notes.
-- A pool's "previous interval" is its own previous row when that interval ends where this one
-- starts (aligned); otherwise there was a gap or a restart.
-- Grain: one row per rule x buffer pool x interval (BP09 and BP11: x evaluation window) that fires.
{%- set mp16 = mp16_rule_parameters() %}

{%- set baseline_intervals = [mp16_threshold(mp16, 'BP07', 'baseline_intervals') | float | int, 1] | max %}

with

pool_stats as (
    select * from {{ ref('fct_buffer_pool_stats') }}
),

roles as (
    select * from {{ ref('dim_mp16_buffer_pool_role') }}
),

stats as (
    select
        pool_stats.qmgr_name,
        pool_stats.qsg_name,
        pool_stats.buffer_pool_id,
        pool_stats.interval_start_at,
        pool_stats.interval_end_at,
        pool_stats.interval_date,
        coalesce(roles.pool_role, 'UNKNOWN') as pool_role,
        pool_stats.buffers,
        pool_stats.stealable_buffers_low,
        pool_stats.lowest_free_pct,
        pool_stats.peak_used_pct,
        cast(pool_stats.get_pages as double) as get_pages,
        cast(pool_stats.get_new_pages as double) as get_new_pages,
        cast(pool_stats.pages_read as double) as pages_read,
        cast(pool_stats.set_writes as double) as set_writes,
        cast(pool_stats.pages_written as double) as pages_written,
        cast(pool_stats.write_ios as double) as write_ios,
        cast(pool_stats.dwt_reached as double) as dwt_reached,
        cast(pool_stats.dmc_reached as double) as dmc_reached,
        cast(pool_stats.steals as double) as steals,
        cast(pool_stats.steal_contentions as double) as steal_contentions,
        cast(pool_stats.short_on_storage as double) as short_on_storage,
        pool_stats.steal_contention_ratio,
        pool_stats.page_set_ios_per_second,
        coalesce(
            lag(pool_stats.aligned_interval_end_at) over pool_history = pool_stats.aligned_interval_start_at, false
        ) as follows_previous,
        cast(lag(pool_stats.get_pages) over pool_history as double) as previous_get_pages,
        cast(lag(pool_stats.get_new_pages) over pool_history as double) as previous_get_new_pages,
        cast(lag(pool_stats.set_writes) over pool_history as double) as previous_set_writes,
        avg(cast(pool_stats.steals as double)) over (
            partition by pool_stats.qmgr_name, pool_stats.buffer_pool_id order by pool_stats.interval_start_at
            rows between {{ baseline_intervals }} preceding and 1 preceding
        ) as steal_baseline
    from pool_stats
    left join roles on pool_stats.qmgr_name = roles.qmgr_name and pool_stats.buffer_pool_id = roles.buffer_pool_id
    window pool_history as (
        partition by pool_stats.qmgr_name, pool_stats.buffer_pool_id order by pool_stats.interval_start_at
    )
),

levels as (
    select
        *,
        {{ mp16_severity(mp16, 'BP01', 'short_on_storage') }} as bp01_level,
        {{ mp16_severity(mp16, 'BP02', 'dmc_reached') }} as bp02_level,
        case
            when
                steals >= {{ mp16_threshold(mp16, 'BP03', 'min_volume') }}
                and {{ mp16_crosses(mp16, 'BP03', 'escalation', 'steal_contention_ratio') }}
                and {{ mp16_severity(mp16, 'BP03', 'steal_contentions') }} is not null
                then 'escalation'
            else {{ mp16_severity(mp16, 'BP03', 'steal_contentions') }}
        end as bp03_level,
        {{ mp16_severity(mp16, 'BP04', 'lowest_free_pct') }} as bp04_level,
        {{ mp16_severity(mp16, 'BP05', 'dwt_reached') }} as bp05_level,
        case when follows_previous then {{ mp16_severity(mp16, 'BP06', 'pages_read') }} end as bp06_level,
        case
            when steals > {{ mp16_threshold(mp16, 'BP07', 'baseline_factor') }} * coalesce(steal_baseline, 0)
                then {{ mp16_severity(mp16, 'BP07', 'steals') }}
        end as bp07_level,
        {{ mp16_severity(mp16, 'BP08', 'page_set_ios_per_second') }} as bp08_level,
        {{ safe_divide('get_pages', 'previous_get_pages') }} as get_page_growth,
        case
            when
                follows_previous
                and get_new_pages <= previous_get_new_pages
                and set_writes <= previous_set_writes
                and pages_read > 0
                then {{ mp16_severity(mp16, 'BP10', safe_divide('get_pages', 'previous_get_pages')) }}
        end as bp10_level
    from stats
),

-- Every rule of the row at once: one struct per rule, kept where the rule fires.
per_interval as (
    select
        firing.rule_id,
        firing.severity,
        firing.threshold_level,
        levels.qmgr_name,
        levels.qsg_name,
        'buffer_pool' as object_type,
        cast(levels.buffer_pool_id as string) as object_name,
        levels.interval_start_at,
        levels.interval_end_at,
        firing.evaluation_window,
        firing.observed_value,
        firing.threshold_value,
        firing.observation
    from levels
        lateral view explode(array(
            {{ mp16_firing(
                'BP01', 'bp01_level', 'bp01_level', 'short_on_storage',
                mp16_severity_threshold(mp16, 'BP01', 'bp01_level'),
                "format_string('QPSTSOS %d: no stealable buffer was free', cast(short_on_storage as bigint))"
            ) }},
            {{ mp16_firing(
                'BP02', 'bp02_level', 'bp02_level', 'dmc_reached',
                mp16_severity_threshold(mp16, 'BP02', 'bp02_level'),
                "format_string('QPSTDMC %d: synchronous page writes below 5 %% stealable (lowest free %.1f %%)',"
                ~ " cast(dmc_reached as bigint), lowest_free_pct)"
            ) }},
            {{ mp16_firing(
                'BP03',
                "case when bp03_level = 'escalation' then " ~ mp16_rule_text(mp16, 'BP03', 'escalation_severity')
                ~ " else bp03_level end",
                'bp03_level',
                "case when bp03_level = 'escalation' then steal_contention_ratio else steal_contentions end",
                "case when bp03_level = 'escalation' then " ~ mp16_threshold(mp16, 'BP03', 'escalation')
                ~ " else " ~ mp16_severity_threshold(mp16, 'BP03', 'bp03_level') ~ " end",
                "format_string('QPSTSTLA %d contentions on QPSTSTL %d steals (ratio %.2f)',"
                ~ " cast(steal_contentions as bigint), cast(steals as bigint), coalesce(steal_contention_ratio, 0))"
            ) }},
            -- MP16 lets the "everything else" pool cross 15 % (l.977): info there instead of warning.
            {{ mp16_firing(
                'BP04', "case when bp04_level = 'warning' and pool_role = 'OTHER' then 'info' else bp04_level end",
                'bp04_level', 'lowest_free_pct', mp16_severity_threshold(mp16, 'BP04', 'bp04_level'),
                "format_string('lowest free %.1f %% (QPSTCBSL %d of QPSTNBUF %d), %s pool', lowest_free_pct,"
                ~ " cast(stealable_buffers_low as bigint), cast(buffers as bigint), pool_role)"
            ) }},
            {{ mp16_firing(
                'BP05', mp16_short_lived_severity('pool_role', 'bp05_level'), 'bp05_level', 'dwt_reached',
                mp16_severity_threshold(mp16, 'BP05', 'bp05_level'),
                "format_string('QPSTDWT %d deferred write starts in a %s pool', cast(dwt_reached as bigint), pool_role)"
            ) }},
            {{ mp16_firing(
                'BP06', mp16_short_lived_severity('pool_role', 'bp06_level'), 'bp06_level', 'pages_read',
                mp16_severity_threshold(mp16, 'BP06', 'bp06_level'),
                "format_string('QPSTRIO %d pages read back from the page set in a %s pool',"
                ~ " cast(pages_read as bigint), pool_role)"
            ) }},
            {{ mp16_firing(
                'BP07', mp16_short_lived_severity('pool_role', 'bp07_level'), 'bp07_level', 'steals',
                mp16_severity_threshold(mp16, 'BP07', 'bp07_level'),
                "format_string('QPSTSTL %d pages stolen (baseline %.0f per interval) in a %s pool',"
                ~ " cast(steals as bigint), coalesce(steal_baseline, 0), pool_role)"
            ) }},
            {{ mp16_firing(
                'BP08', 'bp08_level', 'bp08_level', 'page_set_ios_per_second',
                mp16_severity_threshold(mp16, 'BP08', 'bp08_level'),
                "format_string('%.1f page set I/Os per second (QPSTRIO %d + QPSTWIO %d)', page_set_ios_per_second,"
                ~ " cast(pages_read as bigint), cast(write_ios as bigint))"
            ) }},
            {{ mp16_firing(
                'BP10', 'bp10_level', 'bp10_level', 'get_page_growth', mp16_severity_threshold(mp16, 'BP10', 'bp10_level'),
                "format_string('QPSTGETP %d after %d (x%.1f) while QPSTGETN and QPSTSTW did not grow; QPSTRIO %d',"
                ~ " cast(get_pages as bigint), cast(previous_get_pages as bigint), get_page_growth,"
                ~ " cast(pages_read as bigint))",
                "'previous interval'"
            ) }}
        )) firings as firing
),

-- BP09: pages re-read per page written over the processing cycle (UTC days of window_length days).
{%- set cycle_days = [mp16_threshold(mp16, 'BP09', 'window') | float | int, 1] | max %}
cycle_stats as (
    select
        *,
        date_from_unix_date(cast(floor(unix_date(interval_date) / {{ cycle_days }}) * {{ cycle_days }} as int))
            as cycle_date
    from stats
),

cycles as (
    select
        qmgr_name,
        buffer_pool_id,
        cycle_date,
        max(qsg_name) as qsg_name,
        max_by(pool_role, interval_start_at) as pool_role,
        min(interval_start_at) as interval_start_at,
        max(interval_end_at) as interval_end_at,
        sum(pages_read) as pages_read,
        sum(pages_written) as pages_written
    from cycle_stats
    group by qmgr_name, buffer_pool_id, cycle_date
),

bp09 as (
    select
        'BP09' as rule_id,
        {{ mp16_severity(mp16, 'BP09', safe_divide('pages_read', 'pages_written')) }} as severity,
        {{ mp16_severity(mp16, 'BP09', safe_divide('pages_read', 'pages_written')) }} as threshold_level,
        qmgr_name,
        qsg_name,
        'buffer_pool' as object_type,
        cast(buffer_pool_id as string) as object_name,
        interval_start_at,
        interval_end_at,
        '{{ cycle_days }}-day window' as evaluation_window,
        {{ safe_divide('pages_read', 'pages_written') }} as observed_value,
        cast({{ mp16_threshold(mp16, 'BP09', 'warning') }} as double) as threshold_value,
        format_string(
            '%d pages read for %d pages written over the cycle, LONG pool',
            cast(pages_read as bigint), cast(pages_written as bigint)
        ) as observation
    from cycles
    where pool_role = 'LONG'
),

-- BP11: the pool's highest use over the trailing window_length UTC days, judged once every day
-- has statistics (a pool cannot be called under-used before its peaks have been seen).
{%- set window_days = [mp16_threshold(mp16, 'BP11', 'window') | float | int, 1] | max %}
days as (
    select
        qmgr_name,
        buffer_pool_id,
        interval_date,
        max(qsg_name) as qsg_name,
        min(interval_start_at) as first_interval_start_at,
        max(interval_end_at) as last_interval_end_at,
        max(peak_used_pct) as peak_used_pct
    from stats
    group by qmgr_name, buffer_pool_id, interval_date
),

window_peaks as (
    select
        *,
        max(peak_used_pct) over trailing_days as window_peak_used_pct,
        min(first_interval_start_at) over trailing_days as window_start_at,
        count(*) over trailing_days as days_with_statistics
    from days
    window trailing_days as (
        partition by qmgr_name, buffer_pool_id order by unix_date(interval_date)
        range between {{ window_days - 1 }} preceding and current row
    )
),

bp11 as (
    select
        'BP11' as rule_id,
        {{ mp16_severity(mp16, 'BP11', 'window_peak_used_pct') }} as severity,
        {{ mp16_severity(mp16, 'BP11', 'window_peak_used_pct') }} as threshold_level,
        qmgr_name,
        qsg_name,
        'buffer_pool' as object_type,
        cast(buffer_pool_id as string) as object_name,
        window_start_at as interval_start_at,
        last_interval_end_at as interval_end_at,
        '{{ window_days }}-day window' as evaluation_window,
        window_peak_used_pct as observed_value,
        cast({{ mp16_threshold(mp16, 'BP11', 'info') }} as double) as threshold_value,
        format_string('at most %.1f %% of the buffers used over %d days', window_peak_used_pct, days_with_statistics)
            as observation
    from window_peaks
    where days_with_statistics >= {{ window_days }}
),

final as (
    select * from per_interval
    union all
    select * from bp09
    union all
    select * from bp11
)

select * from final
where severity is not null
