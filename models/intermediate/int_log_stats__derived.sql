-- Log manager statistics (QJST) with the derived metrics of MP16 ("Interpretation of key log manager
-- statistics" (ch. 5, p. 172)).
-- Log control intervals (CIs) are 4 KB; MB are binary (2^20 bytes) as in MP16, so MB = CIs / 256.
-- Grain: one row per queue manager x statistics interval.

with

log_stats as (
    select * from {{ ref('stg_smf__qjst') }}
),

qmgr_qsg as (
    select * from {{ ref('int_smf__qmgr_qsg') }}
),

derived as (
    select
        log_stats.qjst_key as log_stats_key,
        log_stats.qmgr_name,
        qmgr_qsg.qsg_name,
        log_stats.system_id,
        log_stats.mq_version,
        log_stats.structure_length,
        {{ interval_columns('log_stats') }},
        cast(log_stats.write_wait_count as bigint) + log_stats.write_nowait_count + log_stats.write_force_count
            as log_write_requests,
        log_stats.write_force_count as forced_log_writes,
        log_stats.log_ci_created_count as log_cis_created,
        log_stats.ci_written_count as log_cis_written,
        log_stats.log_write_io_count as log_write_ios,
        log_stats.buffer_write_count as logger_calls,
        log_stats.checkpoint_count as checkpoints,
        log_stats.write_buffer_wait_count as buffer_waits,
        log_stats.log_suspend_count as log_suspends,
        log_stats.read_delayed_count as read_delays,
        log_stats.serial_write_count as serial_writes,
        log_stats.threshold_write_count as threshold_writes,
        log_stats.read_output_buffer_count as reads_from_output_buffer,
        log_stats.read_active_log_count as reads_from_active_log,
        log_stats.read_archive_log_count as reads_from_archive_log,
        log_stats.archive_write_allocation_count as archive_write_allocations,
        log_stats.ci_offloaded_count as cis_offloaded,
        {{ safe_divide('log_stats.log_ci_created_count / 256', 'log_stats.interval_seconds') }}
            as log_write_mb_per_sec,
        {{ safe_divide('log_stats.ci_written_count / 256', 'log_stats.interval_seconds') }}
            as log_io_mb_per_sec,
        3600 * {{ safe_divide('log_stats.log_ci_created_count / 256', 'log_stats.interval_seconds') }}
            as log_mb_per_hour,
        {{ safe_divide('log_stats.ci_written_count', 'log_stats.log_ci_created_count') }} as rewrite_amplification,
        {{ safe_divide(
            'cast(log_stats.write_wait_count as bigint) + log_stats.write_nowait_count + log_stats.write_force_count',
            'log_stats.buffer_write_count'
        ) }} as requests_per_logger_call,
        {{ safe_divide('log_stats.ci_written_count', 'log_stats.log_write_io_count') }} as cis_per_log_io,
        {{ safe_divide('log_stats.serial_write_count', 'log_stats.log_write_io_count') }} as serial_write_share,
        {{ safe_divide('log_stats.threshold_write_count', 'log_stats.interval_seconds') }}
            as threshold_writes_per_second,
        {{ safe_divide('log_stats.write_buffer_wait_count', 'log_stats.interval_seconds') }}
            as buffer_waits_per_second,
        3600 * {{ safe_divide('log_stats.checkpoint_count', 'log_stats.interval_seconds') }} as checkpoints_per_hour,
        {{ safe_divide('log_stats.interval_seconds', 'log_stats.checkpoint_count') }}
            as avg_checkpoint_interval_seconds,
        {{ safe_divide(
            'cast(log_stats.write_wait_count as bigint) + log_stats.write_nowait_count + log_stats.write_force_count',
            'log_stats.checkpoint_count'
        ) }} as log_records_per_checkpoint,
        {{ safe_divide(
            'log_stats.read_archive_log_count',
            'log_stats.read_output_buffer_count + log_stats.read_active_log_count + log_stats.read_archive_log_count'
        ) }} as archive_read_share,
        {{ safe_divide('log_stats.copy1_single_ci_io_time_us', 'log_stats.copy1_single_ci_io_count') }}
            as copy1_single_ci_avg_io_us,
        {{ safe_divide('log_stats.copy1_multi_ci_io_time_us', 'log_stats.copy1_multi_ci_io_count') }}
            as copy1_multi_ci_avg_io_us,
        {{ safe_divide('log_stats.copy2_single_ci_io_time_us', 'log_stats.copy2_single_ci_io_count') }}
            as copy2_single_ci_avg_io_us,
        {{ safe_divide('log_stats.copy2_multi_ci_io_time_us', 'log_stats.copy2_multi_ci_io_count') }}
            as copy2_multi_ci_avg_io_us,
        greatest(log_stats.copy1_single_ci_io_time_max_us, log_stats.copy1_multi_ci_io_time_max_us)
            as copy1_io_time_max_us,
        greatest(log_stats.copy2_single_ci_io_time_max_us, log_stats.copy2_multi_ci_io_time_max_us)
            as copy2_io_time_max_us,
        log_stats.copy1_single_ci_suspend_time_us + log_stats.copy1_multi_ci_suspend_time_us
        + log_stats.copy2_single_ci_suspend_time_us + log_stats.copy2_multi_ci_suspend_time_us as log_suspend_time_us,
        log_stats.copy2_single_ci_io_count + log_stats.copy2_multi_ci_io_count > 0 as is_dual_logging,
        log_stats.loaded_at
    from log_stats
    left join qmgr_qsg on log_stats.qmgr_name = qmgr_qsg.qmgr_name
)

select * from derived
