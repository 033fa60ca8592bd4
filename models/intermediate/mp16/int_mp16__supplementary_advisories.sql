-- Supplementary rules SUP01-SUP06 (not MP16: the catalogue's own rules, with MP16 context, on
-- statistics MP16's rules leave unread). No mart holds the storage manager's statistics, so they are
-- read from staging with the queue manager's QSG.
-- SUP01-SUP03: the storage manager (QSST, SMF 115 subtype 1): storage became critical (short on
-- storage), abends for lack of storage, GETMAIN / FREEMAIN requests with a non-zero return code.
-- SUP04-SUP06: the log manager (fct_log_stats; the tape contention delays and paged-in buffers the
-- fact does not carry from stg_smf__qjst): checkpoints per hour in an interval with min_volume
-- checkpoints, tape contention delays per log read, log buffers paged in.
-- Grain: one row per rule x queue manager x object (its storage manager or log) x interval that fires.
{%- set mp16 = mp16_rule_parameters() %}

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
            {{ mp16_firing(
                'SUP01', 'sup01_level', 'sup01_level', 'storage_critical',
                mp16_severity_threshold(mp16, 'SUP01', 'sup01_level'),
                "format_string('storage became critical %d times (QSSTCRIT; %d contractions for short on storage,"
                ~ " QSSTCONT)', cast(storage_critical as bigint), short_on_storage_contractions)"
            ) }},
            {{ mp16_firing(
                'SUP02', 'sup02_level', 'sup02_level', 'storage_abends',
                mp16_severity_threshold(mp16, 'SUP02', 'sup02_level'),
                "format_string('%d abends for lack of storage (QSSTABND)', cast(storage_abends as bigint))"
            ) }},
            {{ mp16_firing(
                'SUP03', 'sup03_level', 'sup03_level', 'failed_storage_requests',
                mp16_severity_threshold(mp16, 'SUP03', 'sup03_level'),
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
            {{ mp16_firing(
                'SUP04', 'sup04_level', 'sup04_level', 'checkpoints_per_hour',
                mp16_severity_threshold(mp16, 'SUP04', 'sup04_level'),
                "format_string('%d checkpoints in the interval (QJSTLLCP), %.1f an hour', cast(checkpoints as bigint),"
                ~ " checkpoints_per_hour)"
            ) }},
            {{ mp16_firing(
                'SUP05', 'sup05_level', 'sup05_level', 'tape_contention_per_read',
                mp16_severity_threshold(mp16, 'SUP05', 'sup05_level'),
                "format_string('%d archive reads delayed by tape volume contention (QJSTTVC) over %d log reads"
                ~ " (QJSTRBUF + QJSTRACT + QJSTRARH; %d from the archive log)', tape_contention_delays, log_reads,"
                ~ " archive_log_reads)"
            ) }},
            {{ mp16_firing(
                'SUP06', 'sup06_level', 'sup06_level', 'buffers_paged_in',
                mp16_severity_threshold(mp16, 'SUP06', 'sup06_level'),
                "format_string('%d log output buffers paged in before they were written (QJSTBPAG)',"
                ~ " cast(buffers_paged_in as bigint))"
            ) }}
    {% endcall %}
),

final as (
    select * from storage_firings
    union all
    select * from log_firings
)

select * from final
where severity is not null
