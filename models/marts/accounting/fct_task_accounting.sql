-- Class 3 task accounting (WTAS of SMF 116 subtype 1, with the task's WTID): what one task (a
-- connection's thread) did in one accounting period, with the MQ calls of its WQ blocks summed
-- (those of its 116/2 continuation records included, fct_queue_accounting). An interval record of a
-- long-running task covers one accounting interval; an end-of-task record the time since the last.
-- Incremental (insert_overwrite by interval_date, the raw partition of the 116/1 record): a run
-- rebuilds the dates the loads changed and the day before them (a continuation record written after
-- midnight adds its WQ blocks to a task of the day before).
-- Grain: one row per queue manager x task (correlator) x accounting period (one 116/1 record).
{%- set dates = changed_interval_date_literals(this) if is_incremental() else none %}

with

tasks as (
    select * from {{ ref('stg_smf__wtas') }}
    {%- if dates %}
        where {{ interval_dates_near(dates, days_before=1) }}
    {%- endif %}
),

identities as (
    select
        source_file,
        record_offset,
        connection_type_code,
        connection_job_name,
        operator_id,
        correlation_id,
        channel_name,
        channel_connection_name,
        transaction_user_id
    from {{ ref('stg_smf__wtid') }}
    where
        smf_subtype = 1
        {%- if dates %}
            and {{ interval_dates_near(dates, days_before=1) }}
        {%- endif %}
),

queue_totals as (
    select
        task_accounting_key,
        count(*) as queue_blocks,
        count(distinct queue_name) as queues,
        sum(opens) as opens,
        sum(closes) as closes,
        sum(gets) as gets,
        sum(puts) as puts,
        sum(put1s) as put1s,
        sum(persistent_gets) as persistent_gets,
        sum(persistent_puts) as persistent_puts,
        sum(persistent_put1s) as persistent_put1s,
        sum(get_elapsed_us) as get_elapsed_us,
        sum(put_elapsed_us) as put_elapsed_us,
        sum(put1_elapsed_us) as put1_elapsed_us,
        count(distinct case when is_shared then cf_structure_name end) as cf_structures_used
    from {{ ref('fct_queue_accounting') }}
    where
        task_accounting_key is not null
        {%- if dates %}
            and {{ interval_dates_near(dates, days_before=1, days_after=1) }}
        {%- endif %}
    group by task_accounting_key
),

final as (
    select
        tasks.wtas_key as task_accounting_key,
        tasks.qmgr_name,
        qmgr_qsg.qsg_name,
        concat(tasks.thread_token, tasks.wtas_token) as task_token,
        tasks.task_started_at,
        tasks.period_start_at,
        tasks.period_end_at,
        unix_micros(tasks.period_end_at) / 1e6 - unix_micros(tasks.period_start_at) / 1e6 as period_seconds,
        tasks.is_end_of_task,
        tasks.record_created_at,
        identities.connection_type_code,
        identities.connection_job_name,
        identities.operator_id,
        identities.correlation_id,
        nullif(identities.channel_name, '') as channel_name,
        nullif(identities.channel_connection_name, '') as channel_connection_name,
        identities.transaction_user_id,
        tasks.block_version,
        tasks.queue_block_count,
        coalesce(queue_totals.queue_blocks, 0) as queue_blocks_found,
        coalesce(queue_totals.queues, 0) as queues,
        coalesce(queue_totals.cf_structures_used, 0) as cf_structures_used,
        tasks.commit_count as commits,
        tasks.commit_elapsed_us,
        tasks.commit_cpu_us,
        tasks.backout_count as backouts,
        tasks.backout_elapsed_us,
        tasks.prepare_count as prepares,
        tasks.log_write_count as log_writes,
        tasks.log_write_bytes,
        tasks.log_write_elapsed_us,
        tasks.forced_log_write_count as forced_log_writes,
        tasks.forced_log_write_elapsed_us,
        tasks.suspend_count as suspends,
        tasks.suspend_elapsed_us,
        tasks.db2_request_count as db2_requests,
        tasks.db2_thread_elapsed_us,
        tasks.db2_server_elapsed_us,
        tasks.cf_single_entry_call_count as cf_single_entry_calls,
        tasks.cf_multiple_entry_call_count as cf_multiple_entry_calls,
        tasks.cf_single_entry_redrive_count + tasks.cf_multiple_entry_redrive_count as cf_redrives,
        tasks.cf_single_entry_elapsed_us + tasks.cf_multiple_entry_elapsed_us as cf_elapsed_us,
        tasks.other_mqi_count as other_mqi_calls,
        tasks.latch_class_11_wait_count as latch_class_11_waits,
        tasks.latch_class_11_wait_time_us,
        tasks.latch_wait_max_class_number,
        tasks.latch_wait_max_class_time_us,
        coalesce(queue_totals.opens, 0) as opens,
        coalesce(queue_totals.closes, 0) as closes,
        coalesce(queue_totals.gets, 0) as gets,
        coalesce(queue_totals.puts, 0) as puts,
        coalesce(queue_totals.put1s, 0) as put1s,
        coalesce(queue_totals.persistent_gets, 0)
        + coalesce(queue_totals.persistent_puts, 0)
        + coalesce(queue_totals.persistent_put1s, 0) as persistent_messages,
        coalesce(queue_totals.get_elapsed_us, 0) as get_elapsed_us,
        coalesce(queue_totals.put_elapsed_us, 0) + coalesce(queue_totals.put1_elapsed_us, 0) as put_elapsed_us,
        tasks.loaded_at,
        tasks.interval_date
    from tasks
    left join identities
        on tasks.source_file = identities.source_file and tasks.record_offset = identities.record_offset
    left join queue_totals on tasks.wtas_key = queue_totals.task_accounting_key
    left join {{ ref('int_smf__qmgr_qsg') }} as qmgr_qsg on tasks.qmgr_name = qmgr_qsg.qmgr_name
)

select * from final
