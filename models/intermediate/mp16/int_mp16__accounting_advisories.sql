-- MP16 rules on class 3 accounting (SMF 116 subtypes 1 and 2: fct_task_accounting and
-- fct_queue_accounting), judged per accounting period (object: a queue or a task), and two that join
-- accounting to the queue statistics (QQST, per statistics interval):
-- Q05: keyed gets on an unindexed queue; Q11: gets served from the page set (outside the queue's
-- restart phase); CF12: shared queue opens that go to the CF (with the opening tasks' latch class
-- 11 wait per open);
-- CF14: a task whose units of work span CF structures; APP01: MQPUTs per MQCMIT (gets not counted);
-- APP02: many commits of about one persistent message each;
-- Q12: a deep private queue that its WQ blocks say is indexed (index rebuild at restart);
-- Q13: a queue with one input handle whose consumer (the accounted task with most gets from it)
-- is busy for most of the interval.
-- Class 3 data covers only the tasks and queues accounted (ACCTQ; MP16 suggests sampling it), so
-- a rule is silent where there is no accounting record, and every firing of Q05, Q11, Q13, CF12,
-- CF14, APP01 and APP02 says it comes from sampled class 3 accounting and how many of the queues
-- active in the statistics interval that accounting covers (int_mp16__class_3_accounting_coverage;
-- an accounting period: the interval holding its middle). A task is named by its connection name
-- and thread tokens, an accounting period by its start.
-- Incremental (insert_overwrite by interval_date, the UTC date of the period's or interval's start;
-- macro file mp16_incremental): a run judges the dates from the first one the loads of queue
-- statistics, accounting or the queue managers' intervals changed (an accounting record written
-- after midnight: from the day before), reading the accounting of the day before them too (Q11's
-- restart phase, a period holding an interval's middle; both shorter than a day). Q12 needs each
-- queue's newest index type, and a queue's WQ blocks may be days old: of the periods before the dates
-- judged it reads only each queue's newest (an aggregate of the history, not a join with it).
-- Grain: one row per rule x queue manager x queue or task x accounting period (Q12, Q13: statistics
-- interval) that fires.
-- depends_on: {{ ref('int_smf__qmgr_intervals') }} (the post-hook reads how far its loads are judged)
{%- set mp16 = mp16_rule_parameters() %}
{%- set scope = mp16_judgement_scope(mp16) %}
{#- The sampling label of a firing, over columns active_queues, accounted_active_queues and
    has_coverage (false: no queue statistics of the interval to measure the coverage against). #}
{%- set sampling_note -%}
case
    when has_coverage
        then format_string(
            '; from sampled class 3 accounting (SMF 116), which covers %d of %d queues active in the statistics'
            || ' interval (QQST puts or gets)', accounted_active_queues, active_queues
        )
    else '; from sampled class 3 accounting (SMF 116), no queue statistics (QQST) of the interval to measure its coverage'
end
{%- endset %}

with

queue_blocks as (
    select * from {{ ref('fct_queue_accounting') }}
    where period_start_at is not null
),

-- The accounting of the dates judged, and of the day before them as context (bounding the raw
-- partitions read too: a record's, interval_date, is never before its period's start date).
judged_queue_blocks as (
    select * from queue_blocks
    where
        {{ mp16_judged_dates(scope, days_before=1) }}
        and {{ mp16_judged_dates(scope, utc_date('period_start_at'), days_before=1) }}
),

tasks as (
    select
        *,
        concat(connection_job_name, ':', task_token) as task_name
    from {{ ref('fct_task_accounting') }}
    where
        {{ mp16_judged_dates(scope, days_before=1) }}
        and {{ mp16_judged_dates(scope, utc_date('period_start_at'), days_before=1) }}
),

queue_stats as (
    select * from {{ ref('fct_queue_stats') }}
    where {{ mp16_judged_dates(scope) }}
),

segments as (
    select * from {{ ref('int_smf__qmgr_segments') }}
),

coverage as (
    select * from {{ ref('int_mp16__class_3_accounting_coverage') }}
    where {{ mp16_judged_dates(scope, days_before=1) }}
),

-- The tasks' latch class 11 (DMCSEGAL) waits, per queue they opened: CF12's corroboration.
opening_tasks as (
    select distinct
        queue_blocks.qmgr_name,
        queue_blocks.queue_name,
        queue_blocks.period_start_at,
        queue_blocks.task_accounting_key
    from judged_queue_blocks as queue_blocks
    where queue_blocks.opens > 0
),

latch_of_openers as (
    select
        opening_tasks.qmgr_name,
        opening_tasks.queue_name,
        opening_tasks.period_start_at,
        sum(tasks.latch_class_11_wait_time_us) as latch_class_11_wait_time_us
    from opening_tasks
    inner join tasks on opening_tasks.task_accounting_key = tasks.task_accounting_key
    group by opening_tasks.qmgr_name, opening_tasks.queue_name, opening_tasks.period_start_at
),

queue_periods as (
    select
        qmgr_name,
        max(qsg_name) as qsg_name,
        queue_name,
        period_start_at,
        max(period_end_at) as period_end_at,
        max(period_seconds) as period_seconds,
        max(index_type_code) = 0 as is_unindexed,
        bool_or(is_shared) as is_shared,
        cast(sum(gets_specific + browses_specific) as double) as specific_gets,
        cast(sum(get_messages_skipped) as double) as messages_skipped,
        cast(max(depth_max) as double) as depth_max,
        cast(sum(gets) as double) as gets,
        cast(sum(get_page_set_reads) as double) as page_set_gets,
        cast(sum(opens) as double) as opens,
        cast(sum(opens_without_cf) as double) as opens_without_cf
    from judged_queue_blocks
    group by qmgr_name, queue_name, period_start_at
),

-- The coverage of an accounting period: that of the queue manager's statistics interval holding the
-- period's middle (the latest such interval, should two overlap).
accounting_periods as (
    select
        qmgr_name,
        period_start_at,
        period_end_at
    from tasks
    union
    select
        qmgr_name,
        period_start_at,
        period_end_at
    from queue_periods
),

period_coverage as (
    select
        accounting_periods.qmgr_name,
        accounting_periods.period_start_at,
        accounting_periods.period_end_at,
        coverage.active_queues,
        coverage.accounted_active_queues,
        row_number() over (
            partition by
                accounting_periods.qmgr_name, accounting_periods.period_start_at, accounting_periods.period_end_at
            order by coverage.interval_start_at desc
        ) as recency
    from accounting_periods
    inner join coverage
        on
            accounting_periods.qmgr_name = coverage.qmgr_name
            and unix_micros(coverage.interval_start_at)
            <= (unix_micros(accounting_periods.period_start_at) + unix_micros(accounting_periods.period_end_at)) div 2
            and unix_micros(coverage.interval_end_at)
            > (unix_micros(accounting_periods.period_start_at) + unix_micros(accounting_periods.period_end_at)) div 2
),

periods_with_coverage as (
    select
        accounting_periods.qmgr_name,
        accounting_periods.period_start_at,
        accounting_periods.period_end_at,
        period_coverage.active_queues,
        period_coverage.accounted_active_queues,
        period_coverage.recency is not null as has_coverage
    from accounting_periods
    left join period_coverage
        on
            accounting_periods.qmgr_name = period_coverage.qmgr_name
            and accounting_periods.period_start_at = period_coverage.period_start_at
            and accounting_periods.period_end_at = period_coverage.period_end_at
            and period_coverage.recency = 1
),

period_notes as (
    select
        qmgr_name,
        period_start_at,
        period_end_at,
        {{ sampling_note | indent(8) }} as sampling_note
    from periods_with_coverage
),

-- Q11 skips the queue's restart phase (macro mp16_restart_phase, on gets from the page set): the
-- segment is the queue manager's run of statistics intervals that holds the period's start.
queue_phases as (
    select
        queue_periods.*,
        coalesce({{ mp16_restart_phase(
            'queue_periods.page_set_gets > 0', 'queue_periods.qmgr_name, queue_periods.queue_name',
            'queue_periods.period_start_at', 'segments.segment_started_at', mp16, 'Q11'
        ) }}, false) as is_restart_phase
    from queue_periods
    left join segments
        on
            queue_periods.qmgr_name = segments.qmgr_name
            and queue_periods.period_start_at >= segments.aligned_interval_start_at
            and queue_periods.period_start_at < segments.aligned_interval_end_at
),

queue_measures as (
    select
        queue_phases.*,
        {{ safe_divide('messages_skipped', 'specific_gets') }} as keyed_scan_depth,
        {{ safe_divide('page_set_gets', 'gets') }} as page_set_get_share,
        {{ safe_divide('opens - opens_without_cf', 'opens') }} as cf_open_share,
        {{ safe_divide('opens', 'period_seconds') }} as opens_per_second,
        {{ safe_divide('latch_of_openers.latch_class_11_wait_time_us', 'opens') }} as latch_11_wait_us_per_open,
        period_notes.sampling_note
    from queue_phases
    left join latch_of_openers
        on
            queue_phases.qmgr_name = latch_of_openers.qmgr_name
            and queue_phases.queue_name = latch_of_openers.queue_name
            and queue_phases.period_start_at = latch_of_openers.period_start_at
    left join period_notes
        on
            queue_phases.qmgr_name = period_notes.qmgr_name
            and queue_phases.period_start_at = period_notes.period_start_at
            and queue_phases.period_end_at = period_notes.period_end_at
),

queue_levels as (
    select
        *,
        -- Q05: skipped messages per keyed get, or (else) the queue's depth, each above its limit.
        case
            when
                is_unindexed and specific_gets >= {{ mp16_threshold(mp16, 'Q05', 'min_volume') }}
                and {{ mp16_crosses(mp16, 'Q05', 'warning', 'keyed_scan_depth') }}
                then 'scan'
            when
                is_unindexed and specific_gets >= {{ mp16_threshold(mp16, 'Q05', 'min_volume') }}
                and depth_max > {{ mp16_threshold(mp16, 'Q05', 'max_depth') }}
                then 'depth'
        end as q05_leg,
        case
            when gets >= {{ mp16_threshold(mp16, 'Q11', 'min_volume') }} and not is_restart_phase
                then {{ mp16_severity(mp16, 'Q11', 'page_set_get_share') }}
        end as q11_level,
        case
            when is_shared and opens_per_second > {{ mp16_threshold(mp16, 'CF12', 'opens_per_second') }}
                then {{ mp16_severity(mp16, 'CF12', 'cf_open_share') }}
        end as cf12_level
    from queue_measures
),

queue_firings as (
    {% call mp16_fired_rows(
        'queue_levels', 'queue', 'levels.queue_name',
        interval_start_at='period_start_at', interval_end_at='period_end_at'
    ) %}
            {{ mp16_firing(
                'Q05', "case when q05_leg is not null then " ~ mp16_rule_text(mp16, 'Q05', 'base_severity') ~ " end",
                "case when q05_leg is not null then 'warning' end",
                "case q05_leg when 'scan' then keyed_scan_depth else depth_max end",
                "case q05_leg when 'scan' then " ~ mp16_threshold(mp16, 'Q05', 'warning')
                ~ " else " ~ mp16_threshold(mp16, 'Q05', 'max_depth') ~ " end",
                "format_string('unindexed queue (INDXTYPE NONE): %d gets and browses by message or correlation id"
                ~ " skipped %.1f messages each (GETSMSG / (GETS + GETBRWS)); highest depth %d (MAXQDPTH)',"
                ~ " cast(specific_gets as bigint), keyed_scan_depth, cast(depth_max as bigint)) || sampling_note",
                window="'accounting period'",
                comparison="case q05_leg when 'depth' then '>' end"
            ) }},
            {{ mp16_rule_firing(
                mp16, 'Q11', 'page_set_get_share',
                "format_string('%d of %d gets read the message from the page set (GETPSN / GETN)',"
                ~ " cast(page_set_gets as bigint), cast(gets as bigint)) || sampling_note",
                window="'accounting period'"
            ) }},
            {{ mp16_rule_firing(
                mp16, 'CF12', 'cf_open_share',
                "format_string('%d opens of the shared queue (%.1f per second), %d of them without CF access"
                ~ " (OPENCF0); latch class 11 wait of the opening tasks %.1f us per open', cast(opens as bigint),"
                ~ " opens_per_second, cast(opens_without_cf as bigint), coalesce(latch_11_wait_us_per_open, 0))"
                ~ " || sampling_note",
                window="'accounting period'"
            ) }}
    {% endcall %}
),

task_measures as (
    select
        tasks.*,
        {{ safe_divide('tasks.puts + tasks.put1s', 'tasks.commits') }} as puts_per_commit,
        {{ safe_divide('tasks.persistent_messages', 'tasks.commits') }} as persistent_per_commit,
        {{ safe_divide('tasks.commits', 'tasks.period_seconds') }} as commits_per_second,
        period_notes.sampling_note
    from tasks
    left join period_notes
        on
            tasks.qmgr_name = period_notes.qmgr_name
            and tasks.period_start_at = period_notes.period_start_at
            and tasks.period_end_at = period_notes.period_end_at
),

task_levels as (
    select
        *,
        -- APP01: MQPUTs (and MQPUT1s) per MQCMIT at every level; gets are not counted (MP16 "Use of
        -- MQ Utilities": "100 MQPUTs within a single MQCMIT").
        case
            when commits >= {{ mp16_threshold(mp16, 'APP01', 'min_volume') }}
                then {{ mp16_severity(mp16, 'APP01', 'puts_per_commit') }}
        end as app01_level,
        case
            when
                persistent_per_commit >= {{ mp16_threshold(mp16, 'APP02', 'min_persistent_per_commit') }}
                and persistent_per_commit <= {{ mp16_threshold(mp16, 'APP02', 'max_persistent_per_commit') }}
                then {{ mp16_severity(mp16, 'APP02', 'commits_per_second') }}
        end as app02_level,
        case
            when commits >= {{ mp16_threshold(mp16, 'CF14', 'min_volume') }}
                then {{ mp16_severity(mp16, 'CF14', 'cf_structures_used') }}
        end as cf14_level
    from task_measures
),

task_firings as (
    {% call mp16_fired_rows(
        'task_levels', 'task', 'levels.task_name',
        interval_start_at='period_start_at', interval_end_at='period_end_at'
    ) %}
            {{ mp16_rule_firing(
                mp16, 'APP01', 'puts_per_commit',
                "format_string('%d commits (CMN) for %d MQPUTs and %d MQPUT1s: %.0f puts per MQCMIT (%d gets not"
                ~ " counted)', commits, puts, put1s, puts_per_commit, gets)"
                ~ " || sampling_note",
                window="'accounting period'"
            ) }},
            {{ mp16_rule_firing(
                mp16, 'APP02', 'commits_per_second',
                "format_string('%.0f commits per second (CMN %d), %.2f persistent messages each', commits_per_second,"
                ~ " commits, persistent_per_commit) || sampling_note",
                window="'accounting period'"
            ) }},
            {{ mp16_rule_firing(
                mp16, 'CF14', 'cf_structures_used',
                "format_string('%d commits on shared queues of %d CF structures (CFSTRUCNAME)', commits,"
                ~ " cf_structures_used) || sampling_note",
                window="'accounting period'"
            ) }}
    {% endcall %}
),

-- Q12: a queue's index type, by accounting period (its WQ blocks).
period_index_types as (
    select
        qmgr_name,
        queue_name,
        period_start_at,
        max(index_type_code) as index_type_code
    from queue_blocks
    group by qmgr_name, queue_name, period_start_at
),

-- The periods an interval judged can take its index type from: those starting on the dates judged,
-- and of the periods before them only each queue's newest (any of them started before every
-- interval judged, so no other can be the newest before one). Joining every interval with every
-- earlier period instead made a day's run grow with the history.
queue_index_types as (
    select * from period_index_types
    where {{ mp16_judged_dates(scope, utc_date('period_start_at')) }}
    {%- if scope.get('first_date') %}
        union all
        select
            qmgr_name,
            queue_name,
            max(period_start_at) as period_start_at,
            max_by(index_type_code, period_start_at) as index_type_code
        from period_index_types
        where not ({{ mp16_judged_dates(scope, utc_date('period_start_at')) }})
        group by qmgr_name, queue_name
    {%- endif %}
),

latest_index_type as (
    select
        queue_stats.queue_stats_key,
        queue_index_types.index_type_code,
        row_number() over (
            partition by queue_stats.queue_stats_key order by queue_index_types.period_start_at desc
        ) as recency
    from queue_stats
    inner join queue_index_types
        on
            queue_stats.qmgr_name = queue_index_types.qmgr_name
            and queue_stats.queue_name = queue_index_types.queue_name
            and queue_stats.interval_end_at > queue_index_types.period_start_at
    where not queue_stats.is_shared and queue_stats.depth_current is not null
),

-- Q13: the consumer of a queue, in the accounting period holding the middle of the interval.
interval_consumers as (
    select
        queue_stats.queue_stats_key,
        queue_blocks.task_accounting_key,
        row_number() over (
            partition by queue_stats.queue_stats_key
            order by queue_blocks.gets desc, queue_blocks.task_accounting_key asc
        ) as rank_by_gets
    from queue_stats
    inner join judged_queue_blocks as queue_blocks
        on
            queue_stats.qmgr_name = queue_blocks.qmgr_name
            and queue_stats.queue_name = queue_blocks.queue_name
            and unix_micros(queue_blocks.period_start_at)
            <= (unix_micros(queue_stats.interval_start_at) + unix_micros(queue_stats.interval_end_at)) div 2
            and unix_micros(queue_blocks.period_end_at)
            > (unix_micros(queue_stats.interval_start_at) + unix_micros(queue_stats.interval_end_at)) div 2
    where queue_stats.input_handles_open = 1 and queue_stats.msgs_out > 0 and queue_blocks.gets > 0
),

interval_measures as (
    select
        queue_stats.qmgr_name,
        queue_stats.qsg_name,
        queue_stats.queue_name,
        queue_stats.interval_start_at,
        queue_stats.interval_end_at,
        queue_stats.interval_seconds,
        cast(queue_stats.depth_current as double) as depth_current,
        latest_index_type.index_type_code,
        cast(queue_stats.msgs_out as double) as gets,
        consumer.task_name as consumer_name,
        {{ safe_divide(
            'consumer.get_elapsed_us + consumer.put_elapsed_us + consumer.commit_elapsed_us', 'consumer.gets'
        ) }} as consumer_us_per_message,
        {{ safe_divide('queue_stats.msgs_out', 'queue_stats.interval_seconds') }}
        * {{ safe_divide(
            'consumer.get_elapsed_us + consumer.put_elapsed_us + consumer.commit_elapsed_us', 'consumer.gets'
        ) }} / 1e6 as consumer_utilisation,
        coverage.qmgr_name is not null as has_coverage,
        coverage.active_queues,
        coverage.accounted_active_queues
    from queue_stats
    left join latest_index_type
        on queue_stats.queue_stats_key = latest_index_type.queue_stats_key and latest_index_type.recency = 1
    left join interval_consumers
        on queue_stats.queue_stats_key = interval_consumers.queue_stats_key and interval_consumers.rank_by_gets = 1
    left join tasks as consumer on interval_consumers.task_accounting_key = consumer.task_accounting_key
    left join coverage
        on queue_stats.qmgr_name = coverage.qmgr_name and queue_stats.interval_start_at = coverage.interval_start_at
    where latest_index_type.queue_stats_key is not null or interval_consumers.queue_stats_key is not null
),

interval_levels as (
    select
        *,
        case
            when index_type_code > 0 then {{ mp16_severity(mp16, 'Q12', 'depth_current') }}
        end as q12_level,
        {{ mp16_severity(mp16, 'Q13', 'consumer_utilisation') }} as q13_level,
        {{ sampling_note | indent(8) }} as sampling_note
    from interval_measures
),

interval_firings as (
    {% call mp16_fired_rows('interval_levels', 'queue', 'levels.queue_name') %}
            {{ mp16_rule_firing(
                mp16, 'Q12', 'depth_current',
                "format_string('private queue indexed (WQ INDXTYPE %d) holds %d messages (QQSTDPTH): its index is"
                ~ " rebuilt at restart', index_type_code, cast(depth_current as bigint))"
            ) }},
            {{ mp16_rule_firing(
                mp16, 'Q13', 'consumer_utilisation',
                "format_string('one input handle (QQSTIPCT 1): %d gets (%.1f per second), the consumer %s spends"
                ~ " %.0f us per message in gets, puts and commits', cast(gets as bigint),"
                ~ " gets / interval_seconds, consumer_name, consumer_us_per_message) || sampling_note"
            ) }}
    {% endcall %}
),

firings as (
    select * from queue_firings
    union all
    select * from task_firings
    union all
    select * from interval_firings
),

final as (
    select
        *,
        {{ utc_date('interval_start_at') }} as interval_date
    from firings
    where severity is not null
)

select * from final
where {{ mp16_judged_dates(scope) }}
