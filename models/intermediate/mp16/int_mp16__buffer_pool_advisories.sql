-- MP16 buffer pool rules BP01-BP17 on fct_buffer_pool_stats, with each
-- pool's role from dim_mp16_buffer_pool_role. Thresholds come from the seed mp16_rules (or the var
-- mp16_thresholds) through mp16_threshold(); conventions per rule are in the seed's evaluation_notes.
-- A pool's "previous interval" is its own previous row when that interval ends where this one
-- starts (aligned); otherwise there was a gap or a restart.
-- BP06 skips the pool's restart phase (macro mp16_restart_phase: the first intervals after a queue
-- manager start while the pool keeps reading pages back, at most restart_window_minutes).
-- BP07 needs a baseline: at least one earlier interval of the pool (the trend cannot be judged on
-- the first). BP08 also judges the busiest page set of the pool (QIS1 read + deferred + immediate
-- write I/O time over the interval). BP09 judges a trailing window (window_length hours) that holds
-- a full processing cycle, so a day's writes and the overnight reads fall in the same window; it
-- reports the first interval of each run of crossings.
-- BP13-BP17 judge the pool's configuration as SMF shows it (QPSTLOC below the bar, QPSTF4KB page
-- fixing, the number of pools); BP13 and BP17 are reported where their condition starts (the first
-- interval, or the first after a gap or after the condition did not hold).
-- BP12 needs to know which queue managers are production ones, which SMF does not record (site
-- setting is_production, dim_mp16_queue_manager_config): a pool under pressure (BP01-BP06 fire on
-- it) smaller than MP16's production starting point for its role; silent where not declared.
-- BP14: the pages a pool's page sets wrote at checkpoints (QIS1CKPP) per checkpoint of the queue
-- manager (QJSTLLCP), written at the page set write rate the site declares (site setting
-- page_set_write_mb_per_sec) or, where it declares none, at MP16's default deferred write rate
-- (default_page_set_write_mb_per_sec in the seed); judged only in intervals with a checkpoint.
-- Grain: one row per rule x buffer pool x interval (BP09 and BP11: x evaluation window) that fires.
{%- set mp16 = mp16_rule_parameters() %}

{%- set baseline_intervals = [mp16_threshold(mp16, 'BP07', 'baseline_intervals') | float | int, 1] | max %}
{%- set bp16_window = [mp16_threshold(mp16, 'BP16', 'window') | float | int, 1] | max %}

with

pool_stats as (
    select * from {{ ref('fct_buffer_pool_stats') }}
),

roles as (
    select * from {{ ref('dim_mp16_buffer_pool_role') }}
),

segments as (
    select * from {{ ref('int_smf__qmgr_segments') }}
),

site_config as (
    select * from {{ ref('dim_mp16_queue_manager_config') }}
),

log_checkpoints as (
    select
        qmgr_name,
        aligned_interval_end_at,
        checkpoints
    from {{ ref('fct_log_stats') }}
),

-- BP14: the pages each pool's page sets wrote at checkpoints in the interval.
checkpoint_pages as (
    select
        qmgr_name,
        buffer_pool_id,
        {{ align_timestamp('interval_end_at') }} as aligned_interval_end_at,
        cast(sum(checkpoint_page_count) as double) as checkpoint_pages
    from {{ ref('stg_smf__qis1') }}
    group by qmgr_name, buffer_pool_id, {{ align_timestamp('interval_end_at') }}
),

-- BP08's QIS1 variant: the busiest page set of each pool, as the share of the interval its read,
-- deferred write and immediate write I/O took.
page_set_busy as (
    select
        qmgr_name,
        buffer_pool_id,
        {{ align_timestamp('interval_end_at') }} as aligned_interval_end_at,
        cast(max(
            {{ safe_divide(
                'coalesce(read_io_time_us, 0) + coalesce(deferred_write_io_time_us, 0)'
                ~ ' + coalesce(immediate_write_io_time_us, 0)',
                'interval_seconds * 1000000'
            ) }}
        ) as double) as busiest_page_set_busy,
        max_by(
            page_set_id,
            coalesce(read_io_time_us, 0)
            + coalesce(deferred_write_io_time_us, 0)
            + coalesce(immediate_write_io_time_us, 0)
        ) as busiest_page_set_id
    from {{ ref('stg_smf__qis1') }}
    group by qmgr_name, buffer_pool_id, {{ align_timestamp('interval_end_at') }}
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
        coalesce(site_config.is_production, false) as is_production,
        pool_stats.buffers,
        pool_stats.stealable_buffers_low,
        pool_stats.lowest_free_pct,
        pool_stats.end_free_pct,
        pool_stats.is_above_bar,
        pool_stats.is_page_fixed,
        pool_stats.interval_seconds,
        pool_stats.peak_used_pct,
        page_set_busy.busiest_page_set_busy,
        page_set_busy.busiest_page_set_id,
        checkpoint_pages.checkpoint_pages,
        cast(log_checkpoints.checkpoints as double) as checkpoints,
        {{ safe_divide('checkpoint_pages.checkpoint_pages', 'log_checkpoints.checkpoints') }} as pages_per_checkpoint,
        coalesce(
            site_config.page_set_write_mb_per_sec,
            {{ mp16_threshold(mp16, 'BP14', 'default_page_set_write_mb_per_sec') }}
        ) as page_set_write_mb_per_sec,
        site_config.page_set_write_mb_per_sec is not null as is_page_set_write_rate_declared,
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
        {{ safe_divide('pool_stats.pages_read + pool_stats.pages_written', 'pool_stats.interval_seconds') }}
            as page_io_per_second,
        lag({{ safe_divide('pool_stats.pages_read + pool_stats.pages_written', 'pool_stats.interval_seconds') }})
            over pool_history as previous_page_io_per_second,
        lag(not pool_stats.is_above_bar and pool_stats.buffers > {{ mp16_threshold(mp16, 'BP13', 'info') }})
            over pool_history as previous_bp13_condition,
        avg(cast(pool_stats.steals as double)) over (
            partition by pool_stats.qmgr_name, pool_stats.buffer_pool_id order by pool_stats.interval_start_at
            rows between {{ baseline_intervals }} preceding and 1 preceding
        ) as steal_baseline,
        coalesce({{ mp16_restart_phase(
            'pool_stats.pages_read > 0', 'pool_stats.qmgr_name, pool_stats.buffer_pool_id',
            'pool_stats.interval_start_at', 'segments.segment_started_at', mp16, 'BP06'
        ) }}, false) as is_restart_phase
    from pool_stats
    left join roles on pool_stats.qmgr_name = roles.qmgr_name and pool_stats.buffer_pool_id = roles.buffer_pool_id
    left join site_config on pool_stats.qmgr_name = site_config.qmgr_name
    left join segments
        on
            pool_stats.qmgr_name = segments.qmgr_name
            and pool_stats.aligned_interval_end_at = segments.aligned_interval_end_at
    left join page_set_busy
        on
            pool_stats.qmgr_name = page_set_busy.qmgr_name
            and pool_stats.buffer_pool_id = page_set_busy.buffer_pool_id
            and pool_stats.aligned_interval_end_at = page_set_busy.aligned_interval_end_at
    left join checkpoint_pages
        on
            pool_stats.qmgr_name = checkpoint_pages.qmgr_name
            and pool_stats.buffer_pool_id = checkpoint_pages.buffer_pool_id
            and pool_stats.aligned_interval_end_at = checkpoint_pages.aligned_interval_end_at
    left join log_checkpoints
        on
            pool_stats.qmgr_name = log_checkpoints.qmgr_name
            and pool_stats.aligned_interval_end_at = log_checkpoints.aligned_interval_end_at
    window pool_history as (
        partition by pool_stats.qmgr_name, pool_stats.buffer_pool_id order by pool_stats.interval_start_at
    )
),

-- BP16: the catalogue's window of consecutive intervals (window_length): this interval and the
-- window - 1 before it all reach the rate, each following the one before (no gap).
sustained_io as (
    select
        *,
        sum(cast({{ mp16_crosses(mp16, 'BP16', 'info', 'page_io_per_second') }} as int)) over (
            partition by qmgr_name, buffer_pool_id order by interval_start_at
            rows between {{ bp16_window - 1 }} preceding and current row
        ) as bp16_crossing_intervals,
        -- each of the window - 1 latest intervals follows the one before it (window 1: none needed)
        sum(cast(follows_previous as int)) over (
            partition by qmgr_name, buffer_pool_id order by interval_start_at
            rows between {{ [bp16_window - 2, 0] | max }} preceding and current row
        ) as bp16_contiguous_intervals
    from stats
),

checkpoint_writes as (
    select
        *,
        -- BP14: seconds the deferred write process needs for one checkpoint's pages (4 KB each).
        pages_per_checkpoint * 4096 / (page_set_write_mb_per_sec * 1048576) as checkpoint_write_seconds
    from sustained_io
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
        case when not is_restart_phase then {{ mp16_severity(mp16, 'BP06', 'pages_read') }} end as bp06_level,
        case
            when steals > {{ mp16_threshold(mp16, 'BP07', 'baseline_factor') }} * steal_baseline
                then {{ mp16_severity(mp16, 'BP07', 'steals') }}
        end as bp07_level,
        {{ mp16_severity(mp16, 'BP08', 'page_set_ios_per_second') }} as bp08_rate_level,
        case
            when busiest_page_set_busy > {{ mp16_threshold(mp16, 'BP08', 'page_set_busy') }}
                then {{ mp16_rule_text(mp16, 'BP08', 'base_severity') }}
        end as bp08_busy_level,
        -- Growth against the previous interval's get pages; a previous interval without any counts
        -- as one page (every GETP then satisfies GETP >= factor x GETP_prev).
        get_pages / greatest(previous_get_pages, 1) as get_page_growth,
        case
            when
                follows_previous
                and get_pages > 0
                and get_new_pages <= previous_get_new_pages
                and set_writes <= previous_set_writes
                and pages_read > 0
                then {{ mp16_severity(mp16, 'BP10', 'get_pages / greatest(previous_get_pages, 1)') }}
        end as bp10_level,
        case
            when
                not is_above_bar
                and pool_role = 'LONG'
                and not (follows_previous and coalesce(previous_bp13_condition, false))
                then {{ mp16_severity(mp16, 'BP13', 'buffers') }}
        end as bp13_level,
        case
            when
                not is_page_fixed
                and bp16_crossing_intervals = {{ bp16_window }}
                and bp16_contiguous_intervals >= {{ bp16_window - 1 }}
                then {{ mp16_severity(mp16, 'BP16', 'page_io_per_second') }}
        end as bp16_level,
        {{ mp16_severity(mp16, 'BP14', 'checkpoint_write_seconds') }} as bp14_level
    from checkpoint_writes
),

-- BP15 needs BP04's and BP06's outcome on the same row; BP12 the rules among BP01-BP06 that fire.
pressure_levels as (
    select
        *,
        concat_ws(
            ', ',
            case when bp01_level is not null then 'BP01' end,
            case when bp02_level is not null then 'BP02' end,
            case when bp03_level is not null then 'BP03' end,
            case when bp04_level is not null then 'BP04' end,
            case when {{ mp16_short_lived_severity('pool_role', 'bp05_level') }} is not null then 'BP05' end,
            case when {{ mp16_short_lived_severity('pool_role', 'bp06_level') }} is not null then 'BP06' end
        ) as pressure_rules,
        case
            when pool_role in ('SYS', 'SHORT') then {{ mp16_threshold(mp16, 'BP12', 'short_lived_buffers') }}
            else {{ mp16_threshold(mp16, 'BP12', 'long_lived_buffers') }}
        end as production_start_buffers,
        case
            when
                not is_above_bar
                and (
                    bp04_level is not null
                    or {{ mp16_short_lived_severity('pool_role', 'bp06_level') }} is not null
                )
                then {{ mp16_rule_text(mp16, 'BP15', 'base_severity') }}
        end as bp15_level
    from levels
),

bp12_levels as (
    select
        *,
        case
            when
                is_production
                and pressure_rules != ''
                and buffers < production_start_buffers
                then
                    case
                        when buffer_pool_id = 0 and {{ mp16_crosses(mp16, 'BP12', 'escalation', 'buffers') }}
                            then 'escalation'
                        else 'info'
                    end
        end as bp12_level
    from pressure_levels
),

-- Every rule of the row at once: one struct per rule, kept where the rule fires.
per_interval as (
    {% call mp16_fired_rows('bp12_levels', 'buffer_pool', 'cast(levels.buffer_pool_id as string)') %}
            {{ mp16_rule_firing(
                mp16, 'BP01', 'short_on_storage',
                "format_string('QPSTSOS %d: no stealable buffer was free', cast(short_on_storage as bigint))"
            ) }},
            {{ mp16_rule_firing(
                mp16, 'BP02', 'dmc_reached',
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
            -- MP16 lets the "everything else" pool cross 15 % ("Buffer pool usage", ch. 1): info there instead.
            {{ mp16_firing(
                'BP04', "case when bp04_level = 'warning' and pool_role = 'OTHER' then 'info' else bp04_level end",
                'bp04_level', 'lowest_free_pct', mp16_severity_threshold(mp16, 'BP04', 'bp04_level'),
                "format_string('lowest free %.1f %% (QPSTCBSL %d of QPSTNBUF %d), %s pool; %s', lowest_free_pct,"
                ~ " cast(stealable_buffers_low as bigint), cast(buffers as bigint), pool_role,"
                ~ " case when " ~ mp16_crosses(mp16, 'BP04', 'warning', 'end_free_pct')
                ~ " then format_string('still %.1f %% free at the end of the interval (QPSTCBS): the pressure carries"
                ~ " into the next interval', end_free_pct) else format_string('%.1f %% free again at the end of the"
                ~ " interval (QPSTCBS)', end_free_pct) end)"
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
                'BP08', 'bp08_rate_level', 'bp08_rate_level', 'page_set_ios_per_second',
                mp16_severity_threshold(mp16, 'BP08', 'bp08_rate_level'),
                "format_string('%.1f page set I/Os per second (QPSTRIO %d + QPSTWIO %d)', page_set_ios_per_second,"
                ~ " cast(pages_read as bigint), cast(write_ios as bigint))"
            ) }},
            -- BP08's page set busy variant, where the I/O rate alone does not fire it.
            {{ mp16_firing(
                'BP08', 'case when bp08_rate_level is null then bp08_busy_level end', 'bp08_busy_level',
                'busiest_page_set_busy', mp16_threshold(mp16, 'BP08', 'page_set_busy'),
                "format_string('page set %d busy %.0f %% of the interval with I/O (QIS1GETT + QIS1DWPT + QIS1IMWT)',"
                ~ " busiest_page_set_id, 100 * busiest_page_set_busy)",
                comparison="'>'"
            ) }},
            {{ mp16_firing(
                'BP12',
                "case bp12_level when 'escalation' then " ~ mp16_rule_text(mp16, 'BP12', 'escalation_severity')
                ~ " when 'info' then " ~ mp16_rule_text(mp16, 'BP12', 'base_severity') ~ " end",
                'bp12_level', 'buffers',
                "case when bp12_level = 'escalation' then " ~ mp16_threshold(mp16, 'BP12', 'escalation')
                ~ " else production_start_buffers end",
                "format_string('%s pool of %d buffers on a production queue manager (site configuration) under"
                ~ " pressure (%s), below the %d MP16 starts production with', pool_role, cast(buffers as bigint),"
                ~ " pressure_rules, cast(production_start_buffers as bigint))",
                comparison="case when bp12_level = 'info' then '<' end"
            ) }},
            {{ mp16_rule_firing(
                mp16, 'BP14', 'checkpoint_write_seconds',
                "format_string('%.0f pages per checkpoint (QIS1CKPP %d over QJSTLLCP %d) take %.1f s to write at"
                ~ " %.0f MB/s (%s)', pages_per_checkpoint, cast(checkpoint_pages as bigint), cast(checkpoints as bigint),"
                ~ " checkpoint_write_seconds, page_set_write_mb_per_sec, case when is_page_set_write_rate_declared"
                ~ " then 'the page set write rate the site declares' else 'the MP16 default deferred write rate: the"
                ~ " site declares none' end)"
            ) }},
            {{ mp16_rule_firing(
                mp16, 'BP13', 'buffers',
                "format_string('LONG pool of %d buffers below the bar (QPSTLOC); MP16 starts a long-lived pool"
                ~ " in 31-bit storage at " ~ mp16_threshold(mp16, 'BP13', 'info') ~ " pages (version 8 and later)',"
                ~ " cast(buffers as bigint))"
            ) }},
            {{ mp16_firing(
                'BP15', 'bp15_level', 'bp15_level', 'lowest_free_pct', 'null',
                "format_string('pool below the bar (QPSTLOC) under pressure: lowest free %.1f %%, QPSTRIO %d, %s pool',"
                ~ " lowest_free_pct, cast(pages_read as bigint), pool_role)"
            ) }},
            {{ mp16_rule_firing(
                mp16, 'BP16', 'page_io_per_second',
                "format_string('%.0f page reads + writes per second (%.0f the interval before; at least "
                ~ mp16_threshold(mp16, 'BP16', 'info') ~ " in each of " ~ bp16_window ~ " consecutive intervals)"
                ~ " in a pool without page-fixed buffers (QPSTF4KB off)', page_io_per_second,"
                ~ " previous_page_io_per_second)",
                "'consecutive intervals'"
            ) }},
            {{ mp16_rule_firing(
                mp16, 'BP10', 'get_page_growth',
                "format_string('QPSTGETP %d after %d (x%.1f) while QPSTGETN and QPSTSTW did not grow; QPSTRIO %d',"
                ~ " cast(get_pages as bigint), cast(previous_get_pages as bigint), get_page_growth,"
                ~ " cast(pages_read as bigint))",
                "'previous interval'"
            ) }}
    {% endcall %}
),

-- BP09: pages read per page written over a trailing window of window_length hours (a processing
-- cycle: a day's puts and the overnight gets fall in one window, wherever the day boundary is).
-- Judged only where the pool has statistics covering the whole window; a window with reads and no
-- page written counts its writes as one page. Reported once per run of crossing windows, at the
-- first interval of the window where the run starts.
{%- set cycle_hours = [mp16_threshold(mp16, 'BP09', 'window') | float, 0.01] | max %}
{%- set cycle_seconds = (cycle_hours * 3600) | int %}
cycle_windows as (
    select
        *,
        sum(pages_read) over trailing_cycle as window_pages_read,
        sum(pages_written) over trailing_cycle as window_pages_written,
        min(interval_start_at) over trailing_cycle as window_start_at,
        min(interval_start_at) over (partition by qmgr_name, buffer_pool_id) as first_statistics_at
    from stats
    window trailing_cycle as (
        partition by qmgr_name, buffer_pool_id order by unix_seconds(interval_end_at)
        range between {{ cycle_seconds - 1 }} preceding and current row
    )
),

cycle_levels as (
    select
        *,
        case
            when
                pool_role = 'LONG'
                and unix_seconds(interval_end_at) - unix_seconds(first_statistics_at) >= {{ cycle_seconds }}
                then {{ mp16_severity(mp16, 'BP09', 'window_pages_read / greatest(window_pages_written, 1)') }}
        end as bp09_level
    from cycle_windows
),

cycle_runs as (
    select
        *,
        lag(bp09_level) over (partition by qmgr_name, buffer_pool_id order by interval_start_at) as previous_bp09_level
    from cycle_levels
),

bp09 as (
    select
        'BP09' as rule_id,
        bp09_level as severity,
        bp09_level as threshold_level,
        qmgr_name,
        qsg_name,
        'buffer_pool' as object_type,
        cast(buffer_pool_id as string) as object_name,
        window_start_at as interval_start_at,
        interval_end_at,
        '{{ '%g' % cycle_hours }}-hour window' as evaluation_window,
        window_pages_read / greatest(window_pages_written, 1) as observed_value,
        cast({{ mp16_threshold(mp16, 'BP09', 'warning') }} as double) as threshold_value,
        format_string(
            '%d pages read for %d pages written in the %.0f hours ending %s, LONG pool',
            cast(window_pages_read as bigint), cast(window_pages_written as bigint), cast({{ cycle_hours }} as double),
            cast(interval_end_at as string)
        ) as observation,
        cast(null as string) as applied_comparison
    from cycle_runs
    where bp09_level is not null and previous_bp09_level is null
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
            as observation,
        cast(null as string) as applied_comparison
    from window_peaks
    where days_with_statistics >= {{ window_days }}
),

-- BP17: more buffer pools in use than MP16's four-pool layout, per queue manager interval.
pool_counts as (
    select
        qmgr_name,
        max(qsg_name) as qsg_name,
        interval_start_at,
        max(interval_end_at) as interval_end_at,
        max(follows_previous) as follows_previous,
        count(case when buffers > 0 then 1 end) as pools_in_use
    from stats
    group by qmgr_name, interval_start_at
),

pool_count_levels as (
    select
        *,
        {{ mp16_severity(mp16, 'BP17', 'pools_in_use') }} as bp17_level,
        lag({{ mp16_severity(mp16, 'BP17', 'pools_in_use') }}) over (
            partition by qmgr_name order by interval_start_at
        ) as previous_bp17_level
    from pool_counts
),

bp17 as (
    select
        'BP17' as rule_id,
        bp17_level as severity,
        bp17_level as threshold_level,
        qmgr_name,
        qsg_name,
        'queue_manager' as object_type,
        qmgr_name as object_name,
        interval_start_at,
        interval_end_at,
        'interval' as evaluation_window,
        cast(pools_in_use as double) as observed_value,
        cast({{ mp16_threshold(mp16, 'BP17', 'info') }} as double) as threshold_value,
        format_string('%d buffer pools in use', pools_in_use) as observation,
        cast(null as string) as applied_comparison
    from pool_count_levels
    where bp17_level is not null and not (follows_previous and previous_bp17_level is not null)
),

final as (
    select * from per_interval
    union all
    select * from bp17
    union all
    select * from bp09
    union all
    select * from bp11
)

select * from final
where severity is not null
