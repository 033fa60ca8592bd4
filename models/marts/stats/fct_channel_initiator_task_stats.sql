-- Channel initiator task statistics (SMF 115 subtype 231): what each dispatcher, adapter, SSL and
-- DNS task did in the interval: requests, CPU, elapsed and wait time, busy % and time per request.
-- The task arrays are the natural grain of the MP16 task rules (the highest-numbered adapter, one
-- dispatcher against the others); fct_channel_initiator_stats sums them per queue manager.
-- Grain: one row per queue manager x statistics interval x task type x task.

with

tasks as (
    {{ select_changed_interval_dates(ref('int_channel_initiator_tasks__unioned')) }}
),

qmgr_qsg as (
    select * from {{ ref('int_smf__qmgr_qsg') }}
),

final as (
    select
        tasks.channel_initiator_task_stats_key,
        tasks.qmgr_name,
        qmgr_qsg.qsg_name,
        tasks.interval_start_at,
        tasks.interval_end_at,
        tasks.interval_seconds,
        tasks.aligned_interval_start_at,
        tasks.aligned_interval_end_at,
        tasks.system_id,
        tasks.mq_version,
        tasks.task_type,
        tasks.task_index,
        tasks.task_number,
        tasks.requests,
        tasks.cpu_us,
        tasks.elapsed_us,
        tasks.wait_us,
        tasks.busy_pct,
        tasks.cpu_pct,
        tasks.avg_request_us,
        tasks.avg_request_cpu_us,
        tasks.channels,
        tasks.longest_request_at,
        tasks.longest_request_us,
        tasks.loaded_at,
        tasks.interval_date
    from tasks
    left join qmgr_qsg on tasks.qmgr_name = qmgr_qsg.qmgr_name
)

select * from final
