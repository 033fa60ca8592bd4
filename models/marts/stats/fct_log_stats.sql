-- Log manager statistics: log volume (MB/s), checkpoints, waits and I/O times, with MP16's metrics.
-- Grain: one row per queue manager x statistics interval.

with

log_stats as (
    {{ select_changed_interval_dates(ref('int_log_stats__derived')) }}
),

final as (
    select
        log_stats_key,
        qmgr_name,
        qsg_name,
        {{ qmgr_interval_columns() }},
        structure_length,
        log_write_requests,
        forced_log_writes,
        log_cis_created,
        log_cis_written,
        log_write_ios,
        logger_calls,
        log_write_mb_per_sec,
        log_io_mb_per_sec,
        log_mb_per_hour,
        rewrite_amplification,
        requests_per_logger_call,
        cis_per_log_io,
        serial_writes,
        serial_write_share,
        threshold_writes,
        threshold_writes_per_second,
        checkpoints,
        checkpoints_per_hour,
        avg_checkpoint_interval_seconds,
        log_records_per_checkpoint,
        buffer_waits,
        buffer_waits_per_second,
        log_suspends,
        log_suspend_time_us,
        read_delays,
        reads_from_output_buffer,
        reads_from_active_log,
        reads_from_archive_log,
        archive_read_share,
        archive_write_allocations,
        cis_offloaded,
        copy1_single_ci_avg_io_us,
        copy1_multi_ci_avg_io_us,
        copy2_single_ci_avg_io_us,
        copy2_multi_ci_avg_io_us,
        copy1_io_time_max_us,
        copy2_io_time_max_us,
        is_dual_logging,
        loaded_at,
        interval_date
    from log_stats
)

select * from final
