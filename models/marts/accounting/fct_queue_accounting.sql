-- Class 3 queue accounting (WQ blocks of SMF 116 subtypes 1 and 2): what one task did with one
-- queue in one accounting period. A block of a 116/1 record belongs to that record's task; a block
-- of a 116/2 continuation record to the latest 116/1 record of the same task (same queue manager
-- and task correlator) written at or before it.
-- Incremental (insert_overwrite by interval_date, the raw partition of the block's record): a run
-- rebuilds the dates the loads changed and the day after them (a continuation record written after
-- midnight belongs to a task record written before it), reading the task records of the day before
-- too.
-- Grain: one row per WQ block = queue manager x task x accounting period x queue opened (a queue
-- opened under two names, or twice, has a row per block).
{%- set dates = changed_interval_date_literals(this) if is_incremental() else none %}

with

blocks as (
    select * from {{ ref('stg_smf__wqst') }}
    {%- if dates %}
        where {{ interval_dates_near(dates, days_after=1) }}
    {%- endif %}
),

tasks as (
    select
        wtas_key,
        qmgr_name,
        concat(thread_token, wtas_token) as task_token,
        record_created_at,
        source_file,
        record_offset,
        period_start_at,
        period_end_at
    from {{ ref('stg_smf__wtas') }}
    {%- if dates %}
        where {{ interval_dates_near(dates, days_before=1, days_after=1) }}
    {%- endif %}
),

candidates as (
    select
        blocks.wqst_key,
        tasks.wtas_key,
        row_number() over (partition by blocks.wqst_key order by tasks.record_created_at desc) as recency
    from blocks
    inner join tasks
        on
            blocks.qmgr_name = tasks.qmgr_name
            and substr(blocks.task_correlator, 17) = tasks.task_token
            and blocks.record_created_at >= tasks.record_created_at
            and (
                blocks.smf_subtype = 2
                or (blocks.source_file = tasks.source_file and blocks.record_offset = tasks.record_offset)
            )
),

task_of_block as (
    select
        candidates.wqst_key,
        tasks.wtas_key,
        tasks.period_start_at,
        tasks.period_end_at
    from candidates
    inner join tasks on candidates.wtas_key = tasks.wtas_key
    where candidates.recency = 1
),

final as (
    select
        blocks.wqst_key as queue_accounting_key,
        task_of_block.wtas_key as task_accounting_key,
        blocks.qmgr_name,
        qmgr_qsg.qsg_name,
        blocks.task_correlator,
        task_of_block.period_start_at,
        task_of_block.period_end_at,
        unix_micros(task_of_block.period_end_at) / 1e6 - unix_micros(task_of_block.period_start_at) / 1e6
            as period_seconds,
        blocks.record_created_at,
        blocks.smf_subtype,
        blocks.entry_index,
        coalesce(nullif(blocks.base_queue_name, ''), blocks.opened_queue_name) as queue_name,
        blocks.opened_queue_name,
        blocks.queue_type_code,
        blocks.index_type_code,
        blocks.index_type_code = 0 as is_unindexed,
        blocks.qsg_disposition_code,
        blocks.qsg_disposition_code = 2 as is_shared,
        blocks.is_topic,
        nullif(blocks.cf_structure_name, '') as cf_structure_name,
        case when blocks.qsg_disposition_code = 2 then cast(null as bigint) else blocks.page_set_id end
            as page_set_id,
        case when blocks.qsg_disposition_code = 2 then cast(null as bigint) else blocks.buffer_pool_id end
            as buffer_pool_id,
        blocks.opened_at,
        blocks.closed_at,
        blocks.open_count as opens,
        blocks.open_without_cf_count as opens_without_cf,
        blocks.close_count as closes,
        blocks.close_without_cf_count as closes_without_cf,
        blocks.open_elapsed_us,
        blocks.close_elapsed_us,
        blocks.get_count as gets,
        blocks.get_any_count as gets_any,
        blocks.get_specific_count as gets_specific,
        blocks.browse_any_count as browses_any,
        blocks.browse_specific_count as browses_specific,
        blocks.get_error_count as get_errors,
        blocks.get_message_skipped_count as get_messages_skipped,
        blocks.get_empty_page_skipped_count as get_empty_pages_skipped,
        blocks.get_page_set_count as get_page_set_reads,
        blocks.get_elapsed_us,
        blocks.get_cpu_us,
        blocks.put_count as puts,
        blocks.put1_count as put1s,
        blocks.put_elapsed_us,
        blocks.put_cpu_us,
        blocks.put1_elapsed_us,
        blocks.put1_cpu_us,
        blocks.persistent_get_count as persistent_gets,
        blocks.persistent_put_count as persistent_puts,
        blocks.persistent_put1_count as persistent_put1s,
        blocks.put_bytes,
        blocks.get_bytes,
        -- GETMINMS / PUTMINMS hold X'0FFFFFFF' when no message was got / put.
        case when blocks.get_count > 0 then blocks.get_message_min_bytes end as get_message_min_bytes,
        case when blocks.get_count > 0 then blocks.get_message_max_bytes end as get_message_max_bytes,
        case when blocks.put_count + blocks.put1_count > 0 then blocks.put_message_min_bytes end
            as put_message_min_bytes,
        case when blocks.put_count + blocks.put1_count > 0 then blocks.put_message_max_bytes end
            as put_message_max_bytes,
        blocks.depth_max,
        blocks.time_on_queue_total_us,
        blocks.time_on_queue_max_us,
        blocks.loaded_at,
        blocks.interval_date
    from blocks
    left join task_of_block on blocks.wqst_key = task_of_block.wqst_key
    left join {{ ref('int_smf__qmgr_qsg') }} as qmgr_qsg on blocks.qmgr_name = qmgr_qsg.qmgr_name
)

select * from final
