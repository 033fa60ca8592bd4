-- MP16 channel initiator rules on its statistics (SMF 115 subtype 231: QCCT and the task arrays;
-- fct_channel_initiator_stats, fct_channel_initiator_task_stats). Busy % of a task = 100 x QCTELTM /
-- interval length.
-- CHIN01: adapters saturated: the highest-numbered adapter busy (adapters are taken lowest-first, so
-- a busy last one means all are in use); escalation when even the least busy adapter is busy.
-- CHIN03: channels unevenly spread over dispatchers: one dispatcher busy while another is idle, or
-- one dispatcher with far more channels than the median.
-- CHIN04: the busiest dispatcher near the throughput limit MP16 saw.
-- CHIN05: many channels on fewer dispatchers than MP16 recommends.
-- CHIN06: the busiest SSL task.
-- CHIN08: channels near MAXCHL or ACTCHL; escalation at MP16's practical ceiling of channels.
-- CHIN09: 31-bit storage in use (QCCTSTUS, MB) against the channel initiator's EPVT size: the size
-- the site declares (dim_mp16_queue_manager_config), else MP16's planning value; the observation says
-- which.
-- CHIN02: fewer adapters than MP16's CHIADAPS for the LPAR's processors (declared by the site) while
-- the channels carry heavy persistent work (channel accounting).
-- CHIN07: SSL tasks not matched to the dispatchers (fewer than dispatchers + 1) or to the processors
-- (no more than the LPAR's, declared by the site), or too many with several idle.
-- CHIN10: the OMVS threads of a system's channel initiators near MAXPROCSYS, or of those with one
-- user id near MAXPROCUSER (limits and user ids declared by the site).
-- The object is the channel initiator, named by its job name (QCCTJOBN).
-- Incremental (insert_overwrite by interval_date, macro file mp16_incremental): a run judges the
-- dates from the first one the loads changed, reading the day before them as context (an interval
-- just before midnight overlaps its system's neighbours of the next day; channel accounting written
-- after midnight ends in an interval of the day before).
-- Grain: one row per rule x queue manager (its channel initiator) x interval that fires.
{%- set mp16 = mp16_rule_parameters() %}
{%- set scope = mp16_judgement_scope(mp16) %}

with

channel_initiator as (
    select * from {{ ref('fct_channel_initiator_stats') }}
    where {{ mp16_judged_dates(scope, days_before=1) }}
),

tasks as (
    select * from {{ ref('fct_channel_initiator_task_stats') }}
    where {{ mp16_judged_dates(scope, days_before=1) }}
),

site_config as (
    select * from {{ ref('dim_mp16_queue_manager_config') }}
),

-- Persistent messages over the channel initiator's channels: the channel accounting intervals that
-- end in the statistics interval.
channel_traffic as (
    select
        channel_initiator.qmgr_name,
        channel_initiator.interval_start_at,
        sum(channels.persistent_msgs) as channel_persistent_msgs
    from channel_initiator
    inner join {{ ref('fct_channel_accounting') }} as channels
        on
            channel_initiator.qmgr_name = channels.qmgr_name
            and channel_initiator.interval_start_at < channels.interval_end_at
            and channel_initiator.interval_end_at >= channels.interval_end_at
            and {{ mp16_judged_dates(scope, 'channels.interval_date', days_before=1) }}
    group by channel_initiator.qmgr_name, channel_initiator.interval_start_at
),

task_measures as (
    select
        qmgr_name,
        interval_start_at,
        min(case when task_type = 'adapter' then busy_pct end) as adapter_min_busy_pct,
        max(case when task_type = 'adapter' then task_index end) as adapter_last_index,
        max_by(busy_pct, case when task_type = 'adapter' then task_index end) as adapter_last_busy_pct,
        min(case when task_type = 'dispatcher' then busy_pct end) as dispatcher_min_busy_pct,
        max_by(task_index, case when task_type = 'dispatcher' then busy_pct end) as busiest_dispatcher_index,
        max_by(avg_request_cpu_us, case when task_type = 'dispatcher' then busy_pct end)
            as busiest_dispatcher_cpu_per_request_us,
        percentile(case when task_type = 'dispatcher' then channels end, 0.5) as dispatcher_channels_median,
        max_by(task_index, case when task_type = 'dispatcher' then channels end) as most_channels_dispatcher_index,
        max_by(task_index, case when task_type = 'ssl' then busy_pct end) as busiest_ssl_index,
        count(
            case when task_type = 'ssl' and busy_pct < {{ mp16_threshold(mp16, 'CHIN07', 'idle_busy_pct') }} then 1 end
        ) as idle_ssl_tasks
    from tasks
    group by qmgr_name, interval_start_at
),

measures as (
    select
        channel_initiator.qmgr_name,
        channel_initiator.qsg_name,
        coalesce(nullif(channel_initiator.chin_job_name, ''), channel_initiator.qmgr_name) as chin_job_name,
        channel_initiator.interval_start_at,
        channel_initiator.interval_end_at,
        channel_initiator.interval_date,
        channel_initiator.current_channels_high,
        channel_initiator.max_channels,
        channel_initiator.active_channels_high,
        channel_initiator.max_active_channels,
        greatest(channel_initiator.channel_use_pct, channel_initiator.active_channel_use_pct) as channel_limit_use_pct,
        channel_initiator.dispatcher_tasks,
        channel_initiator.adapter_tasks,
        channel_initiator.ssl_tasks,
        coalesce(channel_initiator.ssl_requests, 0) as ssl_requests,
        channel_initiator.interval_seconds,
        channel_initiator.system_id,
        site_config.processors,
        site_config.chin_user_id,
        site_config.max_proc_sys,
        site_config.max_proc_user,
        cast(
            {{ mp16_threshold(mp16, 'CHIN10', 'threads_per_chin') }} + channel_initiator.dispatcher_tasks
            + channel_initiator.ssl_tasks as int
        ) as omvs_threads,
        coalesce(channel_traffic.channel_persistent_msgs, 0) as channel_persistent_msgs,
        channel_initiator.dispatcher_busy_pct_max,
        channel_initiator.ssl_busy_pct_max,
        channel_initiator.dispatcher_channels_max,
        channel_initiator.storage_usage_31bit_mb,
        coalesce(site_config.chin_epvt_mb, {{ mp16_threshold(mp16, 'CHIN09', 'planning_epvt_mb') }}) as epvt_mb,
        site_config.chin_epvt_mb is not null as is_epvt_declared,
        task_measures.adapter_min_busy_pct,
        task_measures.adapter_last_index,
        task_measures.adapter_last_busy_pct,
        task_measures.dispatcher_min_busy_pct,
        task_measures.busiest_dispatcher_index,
        task_measures.busiest_dispatcher_cpu_per_request_us,
        task_measures.dispatcher_channels_median,
        task_measures.most_channels_dispatcher_index,
        task_measures.busiest_ssl_index,
        task_measures.idle_ssl_tasks,
        {{ safe_divide('channel_initiator.dispatcher_channels_max', 'task_measures.dispatcher_channels_median') }}
            as dispatcher_channel_skew
    from channel_initiator
    left join task_measures
        on
            channel_initiator.qmgr_name = task_measures.qmgr_name
            and channel_initiator.interval_start_at = task_measures.interval_start_at
    left join site_config on channel_initiator.qmgr_name = site_config.qmgr_name
    left join channel_traffic
        on
            channel_initiator.qmgr_name = channel_traffic.qmgr_name
            and channel_initiator.interval_start_at = channel_traffic.interval_start_at
),

-- Each channel initiator of the same system whose intervals overlap, counted once (its most threads).
omvs_neighbours as (
    select
        measures.qmgr_name,
        measures.interval_start_at,
        neighbours.qmgr_name as neighbour_qmgr_name,
        max(neighbours.omvs_threads) as omvs_threads,
        max(neighbours.chin_user_id) as chin_user_id
    from measures
    inner join measures as neighbours
        on
            measures.system_id = neighbours.system_id
            and measures.interval_start_at < neighbours.interval_end_at
            and measures.interval_end_at > neighbours.interval_start_at
    group by measures.qmgr_name, measures.interval_start_at, neighbours.qmgr_name
),

omvs as (
    select
        measures.qmgr_name,
        measures.interval_start_at,
        sum(omvs_neighbours.omvs_threads) as system_omvs_threads,
        sum(case when omvs_neighbours.chin_user_id = measures.chin_user_id then omvs_neighbours.omvs_threads end)
            as user_omvs_threads
    from measures
    inner join omvs_neighbours
        on
            measures.qmgr_name = omvs_neighbours.qmgr_name
            and measures.interval_start_at = omvs_neighbours.interval_start_at
    group by measures.qmgr_name, measures.interval_start_at
),

with_omvs as (
    select
        measures.*,
        omvs.system_omvs_threads,
        omvs.user_omvs_threads
    from measures
    left join omvs
        on
            measures.qmgr_name = omvs.qmgr_name
            and measures.interval_start_at = omvs.interval_start_at
),

storage as (
    select
        *,
        100 * storage_usage_31bit_mb / epvt_mb as epvt_use_pct,
        -- MP16's CHIADAPS for heavy persistent work on the LPAR's processors; NULL where none are
        -- declared (least and greatest skip NULLs: the case keeps it).
        case
            when processors is not null
                then cast(least(
                    {{ mp16_threshold(mp16, 'CHIN02', 'max_adapters') }},
                    {{ mp16_threshold(mp16, 'CHIN02', 'base_adapters') }}
                    + {{ mp16_threshold(mp16, 'CHIN02', 'adapters_per_processor') }}
                    * greatest(0, processors - {{ mp16_threshold(mp16, 'CHIN02', 'base_processors') }})
                ) as double)
        end as recommended_adapters,
        cast(dispatcher_tasks + {{ mp16_threshold(mp16, 'CHIN07', 'ssl_tasks_above_dispatchers') }} as int)
            as recommended_ssl_tasks,
        {{ safe_divide('channel_persistent_msgs', 'interval_seconds') }} as channel_persistent_msgs_per_second,
        -- The larger use of the two limits (greatest skips a limit not declared).
        greatest(100 * system_omvs_threads / max_proc_sys, 100 * user_omvs_threads / max_proc_user)
            as omvs_limit_use_pct
    from with_omvs
),

shares as (
    select
        *,
        100 * adapter_tasks / recommended_adapters as adapter_share_pct,
        channel_persistent_msgs_per_second
        >= {{ mp16_threshold(mp16, 'CHIN02', 'min_persistent_msgs_per_second') }} as is_heavy_persistent
    from storage
),

levels as (
    select
        *,
        case
            when {{ mp16_crosses(mp16, 'CHIN01', 'escalation', 'adapter_min_busy_pct') }} then 'escalation'
            else {{ mp16_severity(mp16, 'CHIN01', 'adapter_last_busy_pct') }}
        end as chin01_level,
        -- CHIN03 needs two dispatchers to compare; the busy branch first, then the channel spread.
        case
            when dispatcher_tasks < 2 then null
            when
                {{ mp16_crosses(mp16, 'CHIN03', 'warning', 'dispatcher_busy_pct_max') }}
                and dispatcher_min_busy_pct < {{ mp16_threshold(mp16, 'CHIN03', 'idle_busy_pct') }}
                then 'busy'
            when
                dispatcher_channels_max >= {{ mp16_threshold(mp16, 'CHIN03', 'min_volume') }}
                and dispatcher_channel_skew >= {{ mp16_threshold(mp16, 'CHIN03', 'channel_skew_factor') }}
                then 'channels'
        end as chin03_branch,
        {{ mp16_severity(mp16, 'CHIN04', 'dispatcher_busy_pct_max') }} as chin04_level,
        case
            when dispatcher_tasks < {{ mp16_threshold(mp16, 'CHIN05', 'recommended_dispatchers') }}
                then {{ mp16_severity(mp16, 'CHIN05', 'current_channels_high') }}
        end as chin05_level,
        {{ mp16_severity(mp16, 'CHIN06', 'ssl_busy_pct_max') }} as chin06_level,
        case
            when {{ mp16_crosses(mp16, 'CHIN08', 'escalation', 'current_channels_high') }} then 'escalation'
            else {{ mp16_severity(mp16, 'CHIN08', 'channel_limit_use_pct') }}
        end as chin08_level,
        {{ mp16_severity(mp16, 'CHIN09', 'epvt_use_pct') }} as chin09_level,
        {{ mp16_severity(mp16, 'CHIN10', 'omvs_limit_use_pct') }} as chin10_level,
        case when is_heavy_persistent then {{ mp16_severity(mp16, 'CHIN02', 'adapter_share_pct') }} end as chin02_level,
        -- CHIN07: the first branch that holds; matching dispatchers and processors only with SSL in use.
        case
            when ssl_tasks > 0 and ssl_requests > 0 and ssl_tasks < recommended_ssl_tasks then 'dispatchers'
            when ssl_tasks > 0 and ssl_requests > 0 and ssl_tasks <= processors then 'processors'
            when
                ssl_tasks > recommended_ssl_tasks
                and idle_ssl_tasks >= {{ mp16_threshold(mp16, 'CHIN07', 'min_idle_tasks') }}
                then 'idle'
        end as chin07_branch
    from shares
),

final as (
    {% call mp16_fired_rows('levels', 'channel_initiator', 'levels.chin_job_name', date_column='interval_date') %}
            {{ mp16_firing(
                'CHIN01',
                "case when chin01_level = 'escalation' then " ~ mp16_rule_text(mp16, 'CHIN01', 'escalation_severity')
                ~ " else chin01_level end",
                'chin01_level',
                "case when chin01_level = 'escalation' then adapter_min_busy_pct else adapter_last_busy_pct end",
                "case when chin01_level = 'escalation' then " ~ mp16_threshold(mp16, 'CHIN01', 'escalation')
                ~ " else " ~ mp16_severity_threshold(mp16, 'CHIN01', 'chin01_level') ~ " end",
                "case when chin01_level = 'escalation' then format_string('every one of the %d adapters is busy at"
                ~ " least %.1f %% of the interval', adapter_tasks, adapter_min_busy_pct) else format_string('the"
                ~ " highest-numbered of the %d adapters (adapter %d) is busy %.1f %% of the interval: all adapters are in"
                ~ " use', adapter_tasks, adapter_last_index, adapter_last_busy_pct) end"
            ) }},
            {{ mp16_rule_firing(
                mp16, 'CHIN02', 'adapter_share_pct',
                "format_string('%d adapters, %.0f %% of the %.0f MP16 recommends for %d processors, with %.1f"
                ~ " persistent channel messages a second', adapter_tasks, adapter_share_pct, recommended_adapters,"
                ~ " processors, channel_persistent_msgs_per_second)"
            ) }},
            {{ mp16_firing(
                'CHIN03',
                "case when chin03_branch is not null then " ~ mp16_rule_text(mp16, 'CHIN03', 'base_severity') ~ " end",
                "case when chin03_branch is not null then 'warning' end",
                "case when chin03_branch = 'busy' then dispatcher_busy_pct_max else dispatcher_channel_skew end",
                "case when chin03_branch = 'busy' then " ~ mp16_threshold(mp16, 'CHIN03', 'warning')
                ~ " else " ~ mp16_threshold(mp16, 'CHIN03', 'channel_skew_factor') ~ " end",
                "case when chin03_branch = 'busy' then format_string('dispatcher %d is busy %.1f %% of the interval while"
                ~ " another is busy %.1f %% (%d dispatchers)', busiest_dispatcher_index, dispatcher_busy_pct_max,"
                ~ " dispatcher_min_busy_pct, dispatcher_tasks) else format_string('dispatcher %d has %d channels, %.1f"
                ~ " times the median of %.1f over %d dispatchers', most_channels_dispatcher_index, dispatcher_channels_max,"
                ~ " dispatcher_channel_skew, dispatcher_channels_median, dispatcher_tasks) end",
                comparison="case when chin03_branch = 'channels' then '>=' end"
            ) }},
            {{ mp16_rule_firing(
                mp16, 'CHIN04', 'dispatcher_busy_pct_max',
                "format_string('dispatcher %d is busy %.1f %% of the interval (%.1f us CPU per request)',"
                ~ " busiest_dispatcher_index, dispatcher_busy_pct_max, busiest_dispatcher_cpu_per_request_us)"
            ) }},
            {{ mp16_rule_firing(
                mp16, 'CHIN05', 'current_channels_high',
                "format_string('up to %d current channels on %d dispatchers (QCCTNOCC)', current_channels_high,"
                ~ " dispatcher_tasks)"
            ) }},
            {{ mp16_rule_firing(
                mp16, 'CHIN06', 'ssl_busy_pct_max',
                "format_string('SSL task %d is busy %.1f %% of the interval', busiest_ssl_index, ssl_busy_pct_max)"
            ) }},
            {{ mp16_firing(
                'CHIN07',
                "case when chin07_branch is not null then " ~ mp16_rule_text(mp16, 'CHIN07', 'base_severity') ~ " end",
                "case when chin07_branch is not null then 'info' end",
                "case when chin07_branch = 'idle' then idle_ssl_tasks else ssl_tasks end",
                "case chin07_branch when 'dispatchers' then recommended_ssl_tasks when 'processors' then processors"
                ~ " else " ~ mp16_threshold(mp16, 'CHIN07', 'min_idle_tasks') ~ " end",
                "case chin07_branch when 'dispatchers' then format_string('%d SSL tasks for %d dispatchers: MP16 advises"
                ~ " dispatchers + %d', ssl_tasks, dispatcher_tasks, recommended_ssl_tasks - dispatcher_tasks)"
                ~ " when 'processors' then format_string('%d SSL tasks, not more than the %d processors of the LPAR',"
                ~ " ssl_tasks, processors) when 'idle' then format_string('%d of %d SSL tasks (%d dispatchers) busy below %.0f %% of"
                ~ " the interval, %.1f MB of channel initiator storage each', idle_ssl_tasks, ssl_tasks, dispatcher_tasks, "
                ~ "cast(" ~ mp16_threshold(mp16, 'CHIN07', 'idle_busy_pct') ~ " as double), "
                ~ "cast(" ~ mp16_threshold(mp16, 'CHIN07', 'ssl_task_storage_mb') ~ " as double)) end",
                comparison="case chin07_branch when 'dispatchers' then '<' when 'processors' then '<=' else '>=' end"
            ) }},
            {{ mp16_firing(
                'CHIN08',
                "case when chin08_level = 'escalation' then " ~ mp16_rule_text(mp16, 'CHIN08', 'escalation_severity')
                ~ " else chin08_level end",
                'chin08_level',
                "case when chin08_level = 'escalation' then current_channels_high else channel_limit_use_pct end",
                "case when chin08_level = 'escalation' then " ~ mp16_threshold(mp16, 'CHIN08', 'escalation')
                ~ " else " ~ mp16_severity_threshold(mp16, 'CHIN08', 'chin08_level') ~ " end",
                "format_string('up to %d current channels of MAXCHL %d and %d active of ACTCHL %d', current_channels_high,"
                ~ " max_channels, active_channels_high, max_active_channels)"
            ) }},
            {{ mp16_rule_firing(
                mp16, 'CHIN10', 'omvs_limit_use_pct',
                "format_string('%d OMVS threads of the channel initiators of system %s (MAXPROCSYS %s), %s of those of"
                ~ " user id %s (MAXPROCUSER %s); this one: %d dispatchers, %d SSL tasks', system_omvs_threads, system_id,"
                ~ " coalesce(cast(max_proc_sys as string), 'not declared'), coalesce(cast(user_omvs_threads as string),"
                ~ " 'none'), coalesce(chin_user_id, 'not declared'), coalesce(cast(max_proc_user as string),"
                ~ " 'not declared'), dispatcher_tasks, ssl_tasks)"
            ) }},
            {{ mp16_rule_firing(
                mp16, 'CHIN09', 'epvt_use_pct',
                "format_string('%d MB of 31-bit storage in use (QCCTSTUS) of an EPVT of %.0f MB (%s)',"
                ~ " storage_usage_31bit_mb, epvt_mb, case when is_epvt_declared then 'declared by the site'"
                ~ " else 'MP16 planning value, none declared by the site' end)"
            ) }}
    {% endcall %}
)

-- The day before the dates judged was read as context only.
select * from final
where severity is not null and {{ mp16_judged_dates(scope) }}
