-- Supplementary rules SUP01-SUP10 (not MP16: the catalogue's own rules and IBM MQ documentation's,
-- with MP16 context, on statistics MP16's rules leave unread). No mart holds the storage, lock, Db2
-- manager and SMDS statistics, so they are read from staging with the queue manager's QSG.
-- SUP01-SUP03: the storage manager (QSST, SMF 115 subtype 1): storage became critical (short on
-- storage), abends for lack of storage, GETMAIN / FREEMAIN requests with a non-zero return code.
-- SUP04-SUP06: the log manager (fct_log_stats; the tape contention delays and paged-in buffers the
-- fact does not carry from stg_smf__qjst): checkpoints per hour in an interval with min_volume
-- checkpoints, tape contention delays per log read, log buffers paged in.
-- SUP07: the lock manager (QLST) with the calls of fct_message_manager_stats: lock requests per MQPUT +
-- MQGET against the queue manager's baseline (its average over the previous baseline_intervals
-- intervals; none in its first), in intervals with min_volume calls.
-- SUP08: the Db2 manager (Q5ST): server task abends or deadlock timeouts (warning); else the request
-- queue's high-water mark DHIGMAX above the info floor and baseline_factor x its baseline (info).
-- SUP09: waits for a queue manager's SMDS buffers (QESD), per CF structure with SMDS.
-- SUP10: the longest request of the channel initiator's DNS task (QCTLGDU: microseconds) in seconds.
-- Grain: one row per rule x queue manager x object (its storage, lock or Db2 manager, log, SMDS of a
-- structure or channel initiator) x interval that fires.
{%- set mp16 = mp16_rule_parameters() %}
{%- set lock_baseline_intervals = [mp16_threshold(mp16, 'SUP07', 'baseline_intervals') | float | int, 1] | max %}
{%- set queue_baseline_intervals = [mp16_threshold(mp16, 'SUP08', 'baseline_intervals') | float | int, 1] | max %}

with

qmgr_qsg as (
    select * from {{ ref('int_smf__qmgr_qsg') }}
),

storage as (
    select
        storage_manager.qmgr_name,
        qmgr_qsg.qsg_name,
        storage_manager.interval_start_at,
        storage_manager.interval_end_at,
        cast(storage_manager.storage_critical_count as double) as storage_critical,
        cast(storage_manager.storage_abend_count as double) as storage_abends,
        cast(storage_manager.nonzero_return_code_count as double) as failed_storage_requests,
        cast(storage_manager.getmain_count as bigint) + storage_manager.freemain_count as storage_requests,
        cast(storage_manager.short_on_storage_contraction_count as bigint) as short_on_storage_contractions
    from {{ ref('stg_smf__qsst') }} as storage_manager
    left join qmgr_qsg on storage_manager.qmgr_name = qmgr_qsg.qmgr_name
),

storage_levels as (
    select
        *,
        {{ mp16_severity(mp16, 'SUP01', 'storage_critical') }} as sup01_level,
        {{ mp16_severity(mp16, 'SUP02', 'storage_abends') }} as sup02_level,
        {{ mp16_severity(mp16, 'SUP03', 'failed_storage_requests') }} as sup03_level
    from storage
),

storage_firings as (
    {% call mp16_fired_rows('storage_levels', 'storage_manager', 'levels.qmgr_name') %}
            {{ mp16_rule_firing(
                mp16, 'SUP01', 'storage_critical',
                "format_string('storage became critical %d times (QSSTCRIT; %d contractions for short on storage,"
                ~ " QSSTCONT)', cast(storage_critical as bigint), short_on_storage_contractions)"
            ) }},
            {{ mp16_rule_firing(
                mp16, 'SUP02', 'storage_abends',
                "format_string('%d abends for lack of storage (QSSTABND)', cast(storage_abends as bigint))"
            ) }},
            {{ mp16_rule_firing(
                mp16, 'SUP03', 'failed_storage_requests',
                "format_string('%d GETMAIN / FREEMAIN requests ended with a non-zero return code (QSSTRCNZ) of %d"
                ~ " (QSSTGETM + QSSTFREM)', cast(failed_storage_requests as bigint), storage_requests)"
            ) }}
    {% endcall %}
),

log_manager as (
    select
        log_stats.qmgr_name,
        log_stats.qsg_name,
        log_stats.interval_start_at,
        log_stats.interval_end_at,
        cast(log_stats.checkpoints as double) as checkpoints,
        log_stats.checkpoints_per_hour,
        cast(log_stats.reads_from_output_buffer as bigint) + log_stats.reads_from_active_log
        + log_stats.reads_from_archive_log as log_reads,
        cast(log_stats.reads_from_archive_log as bigint) as archive_log_reads,
        cast(log_counters.archive_tape_contention_count as bigint) as tape_contention_delays,
        cast(log_counters.buffer_page_in_count as double) as buffers_paged_in
    from {{ ref('fct_log_stats') }} as log_stats
    inner join {{ ref('stg_smf__qjst') }} as log_counters on log_stats.log_stats_key = log_counters.qjst_key
),

log_levels as (
    select
        *,
        {{ safe_divide('tape_contention_delays', 'log_reads') }} as tape_contention_per_read,
        case
            when checkpoints >= {{ mp16_threshold(mp16, 'SUP04', 'min_volume') }}
                then {{ mp16_severity(mp16, 'SUP04', 'checkpoints_per_hour') }}
        end as sup04_level,
        {{ mp16_severity(mp16, 'SUP05', safe_divide('tape_contention_delays', 'log_reads')) }} as sup05_level,
        {{ mp16_severity(mp16, 'SUP06', 'buffers_paged_in') }} as sup06_level
    from log_manager
),

log_firings as (
    {% call mp16_fired_rows('log_levels', 'log', 'levels.qmgr_name') %}
            {{ mp16_rule_firing(
                mp16, 'SUP04', 'checkpoints_per_hour',
                "format_string('%d checkpoints in the interval (QJSTLLCP), %.1f an hour', cast(checkpoints as bigint),"
                ~ " checkpoints_per_hour)"
            ) }},
            {{ mp16_rule_firing(
                mp16, 'SUP05', 'tape_contention_per_read',
                "format_string('%d archive reads delayed by tape volume contention (QJSTTVC) over %d log reads"
                ~ " (QJSTRBUF + QJSTRACT + QJSTRARH; %d from the archive log)', tape_contention_delays, log_reads,"
                ~ " archive_log_reads)"
            ) }},
            {{ mp16_rule_firing(
                mp16, 'SUP06', 'buffers_paged_in',
                "format_string('%d log output buffers paged in before they were written (QJSTBPAG)',"
                ~ " cast(buffers_paged_in as bigint))"
            ) }}
    {% endcall %}
),

lock_manager as (
    select
        message_manager.qmgr_name,
        message_manager.qsg_name,
        message_manager.interval_start_at,
        message_manager.interval_end_at,
        cast(lock_stats.lock_get_count as bigint) as lock_requests,
        cast(message_manager.puts as bigint) + message_manager.gets as calls,
        {{ safe_divide('lock_stats.lock_get_count', 'cast(message_manager.puts as bigint) + message_manager.gets') }}
            as locks_per_call
    from {{ ref('fct_message_manager_stats') }} as message_manager
    inner join {{ ref('stg_smf__qlst') }} as lock_stats
        on
            message_manager.qmgr_name = lock_stats.qmgr_name
            and message_manager.interval_start_at = lock_stats.interval_start_at
),

lock_baselines as (
    select
        *,
        avg(locks_per_call) over (
            partition by qmgr_name order by interval_start_at
            rows between {{ lock_baseline_intervals }} preceding and 1 preceding
        ) as locks_per_call_baseline
    from lock_manager
),

lock_levels as (
    select
        *,
        {{ safe_divide('locks_per_call', 'locks_per_call_baseline') }} as locks_per_call_to_baseline,
        case
            when calls >= {{ mp16_threshold(mp16, 'SUP07', 'min_volume') }}
                then {{ mp16_severity(mp16, 'SUP07', safe_divide('locks_per_call', 'locks_per_call_baseline')) }}
        end as sup07_level
    from lock_baselines
),

lock_firings as (
    {% call mp16_fired_rows('lock_levels', 'lock_manager', 'levels.qmgr_name') %}
            {{ mp16_rule_firing(
                mp16, 'SUP07', 'locks_per_call_to_baseline',
                "format_string('%.2f lock requests per MQPUT / MQGET (QLSTGETL %d over QMSTPUT + QMSTGET %d) against"
                ~ " %.2f on average before', locks_per_call, lock_requests, calls, locks_per_call_baseline)"
            ) }}
    {% endcall %}
),

db2_manager as (
    select
        db2.qmgr_name,
        qmgr_qsg.qsg_name,
        db2.interval_start_at,
        db2.interval_end_at,
        cast(db2.server_task_abend_count as bigint) as server_task_abends,
        cast(db2.deadlock_timeout_count as bigint) as deadlock_timeouts,
        cast(db2.server_task_abend_count as double) + db2.deadlock_timeout_count as db2_failures,
        cast(db2.request_queue_depth_max as double) as queued_requests_max,
        avg(cast(db2.request_queue_depth_max as double)) over (
            partition by db2.qmgr_name order by db2.interval_start_at
            rows between {{ queue_baseline_intervals }} preceding and 1 preceding
        ) as queued_requests_baseline
    from {{ ref('stg_smf__q5st') }} as db2
    left join qmgr_qsg on db2.qmgr_name = qmgr_qsg.qmgr_name
),

db2_levels as (
    select
        *,
        case
            when {{ mp16_crosses(mp16, 'SUP08', 'warning', 'db2_failures') }} then 'warning'
            when
                {{ mp16_crosses(mp16, 'SUP08', 'info', 'queued_requests_max') }}
                and queued_requests_max
                > {{ mp16_threshold(mp16, 'SUP08', 'baseline_factor') }} * queued_requests_baseline
                then 'info'
        end as sup08_level
    from db2_manager
),

db2_firings as (
    {% call mp16_fired_rows('db2_levels', 'db2_manager', 'levels.qmgr_name') %}
            {{ mp16_firing(
                'SUP08', 'sup08_level', 'sup08_level',
                "case sup08_level when 'warning' then db2_failures else queued_requests_max end",
                "case sup08_level when 'warning' then " ~ mp16_threshold(mp16, 'SUP08', 'warning') ~ " else greatest("
                ~ mp16_threshold(mp16, 'SUP08', 'info') ~ ", " ~ mp16_threshold(mp16, 'SUP08', 'baseline_factor')
                ~ " * queued_requests_baseline) end",
                "format_string('%d Db2 server task abends (ABNDCNT), %d deadlock timeouts (DEADCNT); at most %d"
                ~ " requests queued for a server task (DHIGMAX; %.1f on average before)', server_task_abends,"
                ~ " deadlock_timeouts, cast(queued_requests_max as bigint), queued_requests_baseline)"
            ) }}
    {% endcall %}
),

smds as (
    select
        smds.qmgr_name,
        qmgr_qsg.qsg_name,
        smds.structure_name,
        smds.interval_start_at,
        smds.interval_end_at,
        cast(smds.pool_wait_count as bigint) as pool_waits,
        cast(smds.buffer_wait_count as bigint) as buffer_waits,
        cast(smds.pool_wait_count as double) + smds.buffer_wait_count as smds_buffer_waits,
        smds.pool_wait_time_us,
        smds.buffer_wait_time_us
    from {{ ref('stg_smf__qesd') }} as smds
    left join qmgr_qsg on smds.qmgr_name = qmgr_qsg.qmgr_name
),

smds_levels as (
    select
        *,
        {{ mp16_severity(mp16, 'SUP09', 'smds_buffer_waits') }} as sup09_level
    from smds
),

smds_firings as (
    {% call mp16_fired_rows('smds_levels', 'smds', 'levels.structure_name') %}
            {{ mp16_rule_firing(
                mp16, 'SUP09', 'smds_buffer_waits',
                "format_string('%d waits for the SMDS buffer pool (QESDBFWP, %d us) and %d for a buffer (QESDBFWB,"
                ~ " %d us)', pool_waits, pool_wait_time_us, buffer_waits, buffer_wait_time_us)"
            ) }}
    {% endcall %}
),

dns_tasks as (
    select
        qmgr_name,
        interval_start_at,
        max(longest_request_us) as longest_request_us,
        max_by(longest_request_at, longest_request_us) as longest_request_at
    from {{ ref('fct_channel_initiator_task_stats') }}
    -- A longest request dated before the interval was carried over from an earlier one (APAR
    -- PH69352, data_pitfalls qct_dns_longest_request_carried_over): not this interval's, not judged again.
    where task_type = 'dns' and not longest_request_at < interval_start_at
    group by qmgr_name, interval_start_at
),

dns as (
    select
        channel_initiator.qmgr_name,
        channel_initiator.qsg_name,
        coalesce(nullif(channel_initiator.chin_job_name, ''), channel_initiator.qmgr_name) as chin_job_name,
        channel_initiator.interval_start_at,
        channel_initiator.interval_end_at,
        dns_tasks.longest_request_us / 1e6 as longest_request_seconds,
        dns_tasks.longest_request_at
    from {{ ref('fct_channel_initiator_stats') }} as channel_initiator
    inner join dns_tasks
        on
            channel_initiator.qmgr_name = dns_tasks.qmgr_name
            and channel_initiator.interval_start_at = dns_tasks.interval_start_at
),

dns_levels as (
    select
        *,
        {{ mp16_severity(mp16, 'SUP10', 'longest_request_seconds') }} as sup10_level
    from dns
),

dns_firings as (
    {% call mp16_fired_rows('dns_levels', 'channel_initiator', 'levels.chin_job_name') %}
            {{ mp16_rule_firing(
                mp16, 'SUP10', 'longest_request_seconds',
                "format_string('the longest request of the DNS task took %.3f s (QCTLGDU), at %s UTC (QCTLGTM)',"
                ~ " longest_request_seconds, date_format(longest_request_at, 'yyyy-MM-dd HH:mm:ss'))"
            ) }}
    {% endcall %}
),

final as (
    select * from storage_firings
    union all
    select * from log_firings
    union all
    select * from lock_firings
    union all
    select * from db2_firings
    union all
    select * from smds_firings
    union all
    select * from dns_firings
)

select * from final
where severity is not null
