-- How much of a statistics interval the class 3 accounting (SMF 116) sees: the rules sourced from
-- it (Q05, Q11, Q13, CF12, CF14, APP01, APP02) judge only the sampled windows where it ran, and in
-- them only the queues it accounts (a queue with ACCTQ(OFF), or the queue manager's default off,
-- has no WQ block). MP16 "Accounting Trace Costs" (ch. 1, p. 51); MP16 "Queue option ACCTQ" (ch. 7, p. 187).
-- Active queues: queues with puts or gets in the queue statistics (QQST) of the interval; accounted:
-- of those, the ones with a WQ block in an accounting period overlapping the interval. Periods and
-- intervals are compared on the aligned grid (var interval_alignment_seconds), so an accounting
-- period a few milliseconds off its statistics interval does not count in the next one too.
-- Incremental (insert_overwrite by interval_date): a run recomputes the dates any load changed since
-- (macro changed_interval_dates; a late accounting load re-measures its dates too), reading those
-- dates of the queue statistics and of the accounting the days around them (a period overlapping an
-- interval of the date has its record dated that day, or the day before or after it).
-- Grain: one row per queue manager x statistics interval of its queue statistics.
{{ config(
    materialized='incremental',
    incremental_strategy='insert_overwrite',
    partition_by=['interval_date'],
    on_schema_change='fail',
) }}
{%- set dates = changed_interval_date_literals(this) if is_incremental() else none %}

with

queue_stats as (
    select * from {{ ref('fct_queue_stats') }}
    {%- if dates %}
        where interval_date in ({{ dates }})
    {%- endif %}
),

queue_blocks as (
    select
        qmgr_name,
        queue_name,
        {{ align_timestamp('period_start_at') }} as aligned_period_start_at,
        {{ align_timestamp('period_end_at') }} as aligned_period_end_at
    from {{ ref('fct_queue_accounting') }}
    where
        period_start_at is not null
        {%- if dates %}
            and {{ interval_dates_near(dates, days_before=1, days_after=1) }}
        {%- endif %}
),

task_periods as (
    select
        qmgr_name,
        task_accounting_key,
        {{ align_timestamp('period_start_at') }} as aligned_period_start_at,
        {{ align_timestamp('period_end_at') }} as aligned_period_end_at
    from {{ ref('fct_task_accounting') }}
    {%- if dates %}
        where {{ interval_dates_near(dates, days_before=1, days_after=1) }}
    {%- endif %}
),

intervals as (
    select
        qmgr_name,
        max(qsg_name) as qsg_name,
        interval_start_at,
        max(interval_end_at) as interval_end_at,
        max(interval_seconds) as interval_seconds,
        min(aligned_interval_start_at) as aligned_interval_start_at,
        max(aligned_interval_end_at) as aligned_interval_end_at,
        max(loaded_at) as loaded_at,
        min(interval_date) as interval_date
    from queue_stats
    group by qmgr_name, interval_start_at
),

active_queues as (
    select distinct
        qmgr_name,
        interval_start_at,
        queue_name
    from queue_stats
    where coalesce(msgs_in, 0) + coalesce(msgs_out, 0) > 0
),

accounted_queues as (
    select distinct
        intervals.qmgr_name,
        intervals.interval_start_at,
        queue_blocks.queue_name
    from intervals
    inner join queue_blocks
        on
            intervals.qmgr_name = queue_blocks.qmgr_name
            and intervals.aligned_interval_end_at > queue_blocks.aligned_period_start_at
            and intervals.aligned_interval_start_at < queue_blocks.aligned_period_end_at
),

accounted_tasks as (
    select
        intervals.qmgr_name,
        intervals.interval_start_at,
        count(distinct task_periods.task_accounting_key) as accounted_tasks
    from intervals
    inner join task_periods
        on
            intervals.qmgr_name = task_periods.qmgr_name
            and intervals.aligned_interval_end_at > task_periods.aligned_period_start_at
            and intervals.aligned_interval_start_at < task_periods.aligned_period_end_at
    group by intervals.qmgr_name, intervals.interval_start_at
),

queue_counts as (
    select
        coalesce(active_queues.qmgr_name, accounted_queues.qmgr_name) as qmgr_name,
        coalesce(active_queues.interval_start_at, accounted_queues.interval_start_at) as interval_start_at,
        count(active_queues.queue_name) as active_queues,
        count(case when active_queues.queue_name is not null then accounted_queues.queue_name end)
            as accounted_active_queues,
        count(accounted_queues.queue_name) as accounted_queues
    from active_queues
    full outer join accounted_queues
        on
            active_queues.qmgr_name = accounted_queues.qmgr_name
            and active_queues.interval_start_at = accounted_queues.interval_start_at
            and active_queues.queue_name = accounted_queues.queue_name
    group by
        coalesce(active_queues.qmgr_name, accounted_queues.qmgr_name),
        coalesce(active_queues.interval_start_at, accounted_queues.interval_start_at)
),

final as (
    select
        intervals.qmgr_name,
        intervals.qsg_name,
        intervals.interval_start_at,
        intervals.interval_end_at,
        intervals.interval_seconds,
        coalesce(accounted_tasks.accounted_tasks, 0) > 0 as has_class_3_accounting,
        coalesce(accounted_tasks.accounted_tasks, 0) as accounted_tasks,
        coalesce(queue_counts.active_queues, 0) as active_queues,
        coalesce(queue_counts.accounted_active_queues, 0) as accounted_active_queues,
        coalesce(queue_counts.accounted_queues, 0) as accounted_queues,
        {{ safe_divide('queue_counts.accounted_active_queues', 'queue_counts.active_queues') }}
            as active_queue_coverage,
        intervals.loaded_at,
        intervals.interval_date
    from intervals
    left join queue_counts
        on
            intervals.qmgr_name = queue_counts.qmgr_name
            and intervals.interval_start_at = queue_counts.interval_start_at
    left join accounted_tasks
        on
            intervals.qmgr_name = accounted_tasks.qmgr_name
            and intervals.interval_start_at = accounted_tasks.interval_start_at
)

select * from final
