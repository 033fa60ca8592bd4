-- MP16 log manager rules that the QJST fields support: LOG01-LOG04,
-- LOG06-LOG09, LOG11 and LOG13-LOG15, on fct_log_stats with the message manager's persistent put sizes
-- (LOG02) and the site configuration (dim_mp16_queue_manager_config: DASD reference rates, active
-- log size, archive copies). A queue manager's "previous interval" is its own previous row when
-- that interval ends where this one starts (aligned); a queue manager's statistics "segment" is a run
-- of such contiguous intervals (a new one starts after a gap: a restart or missing data).
-- LOG03 counts what the LOGLOAD counter counts: log records (QJSTWRW + QJSTWRNW + QJSTWRF) since the
-- previous checkpoint (MP16 "Restart": the count is reset to zero after a checkpoint), i.e. the
-- records of the intervals after the segment's previous interval with checkpoints through this one,
-- over this interval's checkpoints. Without an earlier checkpoint in the segment only an interval
-- with two or more checkpoints is judged: its records over (checkpoints - 1) bound the complete
-- cycles inside it from above. Otherwise LOG03 is not evaluable (no firing).
-- LOG02 (and LOG14, which reuses its utilisation) needs the average persistent put size of the
-- interval (QMSTPBP / QMSTSPP): without persistent puts, a release without those fields or no QMST
-- row, the reference column cannot be chosen and the rule is not evaluated.
-- LOG06 skips the intervals of a queue manager's restart phase (mp16_restart_phase), LOG07 and
-- LOG08 need min_volume log write I/Os of the kind they average.
-- LOG15 needs to know whether the active logs are striped, which SMF does not record (site setting
-- is_log_striped): judged only on logs the site declares not striped, on copy 1's write I/Os.
-- LOG10 compares the log written (QJSTBFFL x 4096) with what MP16's log data rate formulae ("How can
-- we estimate the required log data rate for a system?") expect from the interval's traffic, parameters
-- in the seed: each persistent message put is put and got once (its length + headers + a fixed cost, plus
-- a cost per 4 KB page for a message of more than one page); MQGETs beyond those puts (QMSTGET counts
-- every get: an upper bound of the persistent ones) at MP16's get cost; and per channel batch that can
-- hold a persistent message (channel accounting rows ending in the interval) MP16's sender or receiver
-- cost, the sender's rising with the achieved batch size. Commits are inside MP16's per-message figures.
-- Judged where the log writes at least min_volume MB/s and the release reports persistent puts.
-- LOG13 needs the restart target and the page set backup interval (site settings
-- restart_target_minutes, page_set_backup_hours): the log written since the last backup (the
-- declared backup interval before each interval's end, from the intervals' own log) against the log
-- recovery reads within the target (MP16 formula A, at the site's log read rate or MP16's default)
-- and, where their size and count are declared, what the active logs hold; silent without them.
-- CF17 (QSG capacity) fires where LOG02 fires on every member of a queue-sharing group that wrote
-- log statistics in the interval; like LOG11 it is reported on the busiest member.
-- Grain: one row per rule x queue manager log x interval that fires.
{%- set mp16 = mp16_rule_parameters() %}
{%- set log10_header = mp16_threshold(mp16, 'LOG10', 'header_bytes') %}
{%- set log10_message = mp16_threshold(mp16, 'LOG10', 'message_log_bytes') %}
{%- set log10_page = mp16_threshold(mp16, 'LOG10', 'page_log_bytes') %}
{%- set log10_get = mp16_threshold(mp16, 'LOG10', 'get_log_bytes') %}
{%- set log10_sender_batch = mp16_threshold(mp16, 'LOG10', 'sender_batch_log_bytes') %}
{%- set log10_sender_batch_growth = '(' ~ mp16_threshold(mp16, 'LOG10', 'sender_batch_50_log_bytes') ~ ' - '
    ~ log10_sender_batch ~ ')' %}
{%- set log10_receiver_batch = mp16_threshold(mp16, 'LOG10', 'receiver_batch_log_bytes') %}
{%- set log10_large_batch = mp16_threshold(mp16, 'LOG10', 'large_batch_messages') %}

with

log_stats as (
    select * from {{ ref('fct_log_stats') }}
),

message_manager as (
    select * from {{ ref('fct_message_manager_stats') }}
),

site_config as (
    select * from {{ ref('dim_mp16_queue_manager_config') }}
),

segments as (
    select * from {{ ref('int_smf__qmgr_segments') }}
),

-- LOG10: the channel batches of each channel accounting row that MP16 counts log for. Batches of
-- non-persistent messages only are taken to be on NPMSPEED(FAST) channels, which log nothing.
channel_batch_log as (
    select
        qmgr_name,
        interval_end_at,
        is_sender_type,
        channel_type_code in (3, 4, 8) as is_receiver_type,  -- receiver, requester, cluster receiver
        cast(least(batches, persistent_msgs) as double) as logged_batches,
        -- a sender's cost rises linearly from an achieved batch of 1 to one of large_batch_messages
        (least(greatest(msgs_per_batch, 1), {{ log10_large_batch }}) - 1) / ({{ log10_large_batch }} - 1)
            as sender_batch_fill
    from {{ ref('fct_channel_accounting') }}
    where batches > 0
),

-- LOG07 / LOG08 volumes: the I/O counts behind the averages, which only staging carries.
log_io_counts as (
    select
        qjst_key,
        cast(copy1_single_ci_io_count as double) as copy1_single_ci_ios,
        cast(copy2_single_ci_io_count as double) as copy2_single_ci_ios,
        cast(copy1_multi_ci_io_count as double) as copy1_multi_ci_ios,
        cast(copy2_multi_ci_io_count as double) as copy2_multi_ci_ios
    from {{ ref('stg_smf__qjst') }}
),

-- The channel batches of the accounting intervals that end inside each statistics interval.
interval_channel_batch_log as (
    select
        log_stats.qmgr_name,
        log_stats.interval_end_at,
        sum(case
            when channel_batch_log.is_sender_type
                then
                    channel_batch_log.logged_batches
                    * ({{ log10_sender_batch }} + {{ log10_sender_batch_growth }} * channel_batch_log.sender_batch_fill)
            when channel_batch_log.is_receiver_type then channel_batch_log.logged_batches * {{ log10_receiver_batch }}
            else 0
        end) as channel_batch_log_bytes
    from log_stats
    inner join channel_batch_log
        on
            log_stats.qmgr_name = channel_batch_log.qmgr_name
            and log_stats.interval_start_at < channel_batch_log.interval_end_at
            and log_stats.interval_end_at >= channel_batch_log.interval_end_at
    group by log_stats.qmgr_name, log_stats.interval_end_at
),

stats as (
    select
        log_stats.qmgr_name,
        log_stats.qsg_name,
        log_stats.interval_start_at,
        log_stats.interval_end_at,
        log_stats.interval_seconds,
        log_stats.aligned_interval_end_at,
        cast(log_stats.buffer_waits as double) as buffer_waits,
        log_stats.buffer_waits > 0 as has_buffer_waits,
        log_stats.log_write_mb_per_sec,
        log_stats.log_mb_per_hour,
        cast(log_stats.log_write_requests as double) as log_write_requests,
        cast(log_stats.checkpoints as double) as checkpoints,
        cast(log_stats.checkpoints > 0 as int) as has_checkpoints,
        cast(log_stats.archive_write_allocations as double) as archive_write_allocations,
        cast(log_stats.reads_from_archive_log as double) as reads_from_archive_log,
        log_stats.copy1_single_ci_avg_io_us,
        log_stats.copy2_single_ci_avg_io_us,
        log_stats.copy1_multi_ci_avg_io_us,
        log_stats.copy2_multi_ci_avg_io_us,
        log_io_counts.copy1_single_ci_ios,
        log_io_counts.copy2_single_ci_ios,
        log_io_counts.copy1_multi_ci_ios,
        log_io_counts.copy2_multi_ci_ios,
        log_stats.serial_write_share,
        cast(log_stats.serial_writes as double) as serial_writes,
        cast(log_stats.log_write_ios as double) as log_write_ios,
        log_stats.is_dual_logging,
        cast(log_stats.log_cis_created as double) * 4096 as log_bytes,
        cast(message_manager.persistent_puts as double) as persistent_puts,
        cast(message_manager.persistent_put_bytes as double) as persistent_put_bytes,
        cast(message_manager.gets as double) as gets,
        message_manager.avg_persistent_put_bytes,
        site_config.log_dasd_model,
        site_config.log_reference_mb_per_sec_1kb,
        site_config.log_reference_mb_per_sec_5kb,
        site_config.log_reference_mb_per_sec_1mb,
        site_config.active_log_mb,
        site_config.archive_copies,
        site_config.is_log_striped,
        coalesce(interval_channel_batch_log.channel_batch_log_bytes, 0) as channel_batch_log_bytes,
        site_config.active_log_count,
        site_config.restart_target_minutes,
        site_config.page_set_backup_hours,
        coalesce(
            site_config.log_read_mb_per_sec, {{ mp16_threshold(mp16, 'LOG13', 'default_log_read_mb_per_sec') }}
        ) as log_read_mb_per_sec,
        site_config.log_read_mb_per_sec is not null as is_log_read_rate_declared,
        coalesce(
            lag(log_stats.aligned_interval_end_at) over log_history = log_stats.aligned_interval_start_at, false
        ) as follows_previous,
        coalesce(lag(log_stats.buffer_waits > 0) over log_history, false) as previous_has_buffer_waits,
        coalesce({{ mp16_restart_phase(
            'log_stats.reads_from_archive_log > 0', 'log_stats.qmgr_name', 'log_stats.interval_start_at',
            'segments.segment_started_at', mp16, 'LOG06'
        ) }}, false) as is_restart_phase
    from log_stats
    left join message_manager
        on
            log_stats.qmgr_name = message_manager.qmgr_name
            and log_stats.aligned_interval_end_at = message_manager.aligned_interval_end_at
    left join site_config on log_stats.qmgr_name = site_config.qmgr_name
    left join segments
        on
            log_stats.qmgr_name = segments.qmgr_name
            and log_stats.aligned_interval_end_at = segments.aligned_interval_end_at
    left join log_io_counts on log_stats.log_stats_key = log_io_counts.qjst_key
    left join interval_channel_batch_log
        on
            log_stats.qmgr_name = interval_channel_batch_log.qmgr_name
            and log_stats.interval_end_at = interval_channel_batch_log.interval_end_at
    window log_history as (partition by log_stats.qmgr_name order by log_stats.interval_start_at)
),

-- LOG01 escalation: length of the run of contiguous intervals with buffer waits ending here.
-- LOG03: the segment (run of contiguous intervals) and how many of its earlier intervals had
-- checkpoints: the rows of one checkpoint cycle share (segment_id, earlier_checkpoint_intervals).
wait_runs as (
    select
        *,
        sum(case when has_buffer_waits and previous_has_buffer_waits and follows_previous then 0 else 1 end)
            over (partition by qmgr_name order by interval_start_at rows between unbounded preceding and current row)
            as wait_run_id,
        sum(case when follows_previous then 0 else 1 end)
            over (partition by qmgr_name order by interval_start_at rows between unbounded preceding and current row)
            as segment_id
    from stats
),

checkpoint_cycles as (
    select
        *,
        coalesce(
            sum(has_checkpoints) over (
                partition by qmgr_name, segment_id order by interval_start_at
                rows between unbounded preceding and 1 preceding
            ),
            0
        ) as earlier_checkpoint_intervals
    from wait_runs
),

derived as (
    select
        *,
        case
            when has_buffer_waits
                then row_number() over (partition by qmgr_name, wait_run_id order by interval_start_at)
        end as consecutive_wait_intervals,
        -- LOG02: MP16's reference rate for the message size nearest the average persistent put.
        case
            when avg_persistent_put_bytes is null then null
            when abs(avg_persistent_put_bytes - 1024) <= abs(avg_persistent_put_bytes - 5120) then 1024
            when abs(avg_persistent_put_bytes - 5120) <= abs(avg_persistent_put_bytes - 1048576) then 5120
            else 1048576
        end as reference_message_bytes,
        -- LOG10: 4 KB pages the average persistent message and its headers occupy.
        ceil((avg_persistent_put_bytes + {{ log10_header }}) / 4096) as persistent_message_pages,
        -- LOG03: log records since the previous checkpoint (the intervals of this checkpoint cycle).
        sum(log_write_requests) over (
            partition by qmgr_name, segment_id, earlier_checkpoint_intervals order by interval_start_at
            rows between unbounded preceding and current row
        ) as log_write_requests_since_checkpoint
    from checkpoint_cycles
),

-- LOG13: the log written since the last page set backup, i.e. in the declared backup interval
-- before this interval's end: each interval's log in proportion to its overlap with that window
-- (intervals missing from the data add nothing: a lower bound).
log_since_backup as (
    select
        judged.qmgr_name,
        judged.interval_start_at,
        sum(
            written.log_bytes * greatest(
                least(unix_micros(written.interval_end_at), unix_micros(judged.interval_end_at))
                - greatest(
                    unix_micros(written.interval_start_at),
                    unix_micros(judged.interval_end_at) - judged.page_set_backup_hours * 3600000000
                ),
                0
            ) / (unix_micros(written.interval_end_at) - unix_micros(written.interval_start_at))
        ) / 1048576 as log_mb_since_backup
    from stats as judged
    inner join stats as written
        on
            judged.qmgr_name = written.qmgr_name
            and judged.interval_end_at > written.interval_start_at
            and written.interval_end_at > written.interval_start_at
            and unix_micros(judged.interval_end_at) - judged.page_set_backup_hours * 3600000000
            < unix_micros(written.interval_end_at)
    where judged.page_set_backup_hours is not null and judged.restart_target_minutes is not null
    group by judged.qmgr_name, judged.interval_start_at
),

derived_with_backup as (
    select
        derived.*,
        log_since_backup.log_mb_since_backup
    from derived
    left join log_since_backup
        on
            derived.qmgr_name = log_since_backup.qmgr_name
            and derived.interval_start_at = log_since_backup.interval_start_at
),

measures as (
    select
        *,
        {{ safe_divide(
            'log_write_mb_per_sec',
            'case reference_message_bytes when 1024 then log_reference_mb_per_sec_1kb'
            ~ ' when 5120 then log_reference_mb_per_sec_5kb when 1048576 then log_reference_mb_per_sec_1mb end'
        ) }} as log_utilisation,
        case reference_message_bytes
            when 1024 then log_reference_mb_per_sec_1kb
            when 5120 then log_reference_mb_per_sec_5kb
            when 1048576 then log_reference_mb_per_sec_1mb
        end as reference_mb_per_sec,
        case
            when checkpoints > 0 and earlier_checkpoint_intervals > 0
                then log_write_requests_since_checkpoint / checkpoints
            when checkpoints >= 2 then log_write_requests / (checkpoints - 1)
        end as log_records_per_checkpoint,
        case
            when checkpoints > 0 and earlier_checkpoint_intervals > 0 then 'since the previous checkpoint'
            when checkpoints >= 2 then 'complete checkpoint cycles in the interval'
        end as log03_basis,
        -- LOG10: MP16's expected log bytes; a persistent message of more than one 4 KB page (with its
        -- headers) adds a cost per page.
        persistent_put_bytes
        + persistent_puts * ({{ log10_header }} + {{ log10_message }} + case
            when persistent_message_pages > 1 then {{ log10_page }} * persistent_message_pages else 0
        end)
        + greatest(gets - persistent_puts, 0) * {{ log10_get }}
        + channel_batch_log_bytes as expected_log_bytes,
        {{ safe_divide('active_log_mb', 'log_write_mb_per_sec * 60') }} as log_fill_minutes,
        3600 * {{ safe_divide('archive_write_allocations', 'archive_copies * interval_seconds') }} as offloads_per_hour,
        greatest(
            {{ safe_divide('copy2_multi_ci_avg_io_us', 'copy1_multi_ci_avg_io_us') }},
            {{ safe_divide('copy1_multi_ci_avg_io_us', 'copy2_multi_ci_avg_io_us') }}
        ) as copy_io_ratio,
        -- LOG08: the slowest copy's single-CI average, among the copies with min_volume such writes.
        greatest(
            case
                when copy1_single_ci_ios >= {{ mp16_threshold(mp16, 'LOG08', 'min_volume') }}
                    then copy1_single_ci_avg_io_us
            end,
            case
                when copy2_single_ci_ios >= {{ mp16_threshold(mp16, 'LOG08', 'min_volume') }}
                    then copy2_single_ci_avg_io_us
            end
        ) as single_ci_avg_io_us,
        -- LOG15: the share of copy 1's log write I/Os that write more than one CI.
        {{ safe_divide('copy1_multi_ci_ios', 'copy1_single_ci_ios + copy1_multi_ci_ios') }} as multi_ci_write_share,
        -- LOG13: the log the restart reads within its target (formula A) and, where declared, the
        -- active logs' capacity (least() skips an unknown bound), against the log since the backup.
        least(restart_target_minutes * 60 * log_read_mb_per_sec, active_log_mb * active_log_count)
            as recoverable_log_mb,
        {{ safe_divide(
            'log_mb_since_backup',
            'least(restart_target_minutes * 60 * log_read_mb_per_sec, active_log_mb * active_log_count)'
        ) }} as log13_ratio
    from derived_with_backup
),

levels as (
    select
        *,
        case
            when
                {{ mp16_crosses(mp16, 'LOG01', 'escalation', 'consecutive_wait_intervals') }}
                and {{ mp16_severity(mp16, 'LOG01', 'buffer_waits') }} is not null
                then 'escalation'
            else {{ mp16_severity(mp16, 'LOG01', 'buffer_waits') }}
        end as log01_level,
        {{ mp16_severity(mp16, 'LOG02', 'log_utilisation') }} as log02_level,
        {{ mp16_severity(mp16, 'LOG03', 'log_records_per_checkpoint') }} as log03_level,
        case
            when
                persistent_puts is not null
                and log_write_mb_per_sec >= {{ mp16_threshold(mp16, 'LOG10', 'min_volume') }}
                then {{ mp16_severity(mp16, 'LOG10', safe_divide('log_bytes', 'expected_log_bytes')) }}
        end as log10_level,
        case
            when active_log_mb is not null then {{ mp16_severity(mp16, 'LOG04', 'log_fill_minutes') }}
            when offloads_per_hour > {{ mp16_threshold(mp16, 'LOG04', 'offloads_per_hour') }} then 'warning'
        end as log04_level,
        case when not is_restart_phase then {{ mp16_severity(mp16, 'LOG06', 'reads_from_archive_log') }} end
            as log06_level,
        case
            when
                least(copy1_multi_ci_ios, copy2_multi_ci_ios) >= {{ mp16_threshold(mp16, 'LOG07', 'min_volume') }}
                then {{ mp16_severity(mp16, 'LOG07', 'copy_io_ratio') }}
        end as log07_level,
        case
            when
                greatest(copy1_single_ci_ios, coalesce(copy2_single_ci_ios, 0))
                >= {{ mp16_threshold(mp16, 'LOG08', 'min_volume') }}
                then {{ mp16_severity(mp16, 'LOG08', 'single_ci_avg_io_us') }}
        end as log08_level,
        case when is_dual_logging then {{ mp16_severity(mp16, 'LOG09', 'serial_write_share') }} end as log09_level,
        case when is_dual_logging then {{ mp16_severity(mp16, 'LOG14', 'log_utilisation') }} end as log14_level,
        case
            when
                not is_log_striped
                and copy1_single_ci_ios + copy1_multi_ci_ios >= {{ mp16_threshold(mp16, 'LOG15', 'min_volume') }}
                then {{ mp16_severity(mp16, 'LOG15', 'multi_ci_write_share') }}
        end as log15_level,
        case
            when restart_target_minutes is not null then {{ mp16_severity(mp16, 'LOG13', 'log13_ratio') }}
        end as log13_level
    from measures
),

per_queue_manager as (
    {% call mp16_fired_rows('levels', 'log', 'levels.qmgr_name') %}
            {{ mp16_firing(
                'LOG01',
                "case when log01_level = 'escalation' then " ~ mp16_rule_text(mp16, 'LOG01', 'escalation_severity')
                ~ " else log01_level end",
                'log01_level',
                "case when log01_level = 'escalation' then consecutive_wait_intervals else buffer_waits end",
                "case when log01_level = 'escalation' then " ~ mp16_threshold(mp16, 'LOG01', 'escalation')
                ~ " else " ~ mp16_severity_threshold(mp16, 'LOG01', 'log01_level') ~ " end",
                "format_string('QJSTWTB %d waits for a free log output buffer (%d consecutive interval(s) with waits)',"
                ~ " cast(buffer_waits as bigint), consecutive_wait_intervals)",
                "case when log01_level = 'escalation' then 'consecutive intervals' else 'interval' end"
            ) }},
            {{ mp16_rule_firing(
                mp16, 'LOG02', 'log_utilisation',
                "format_string('%.1f MB/s of log = %.0f %% of %.1f MB/s (%s, %d-byte column;"
                ~ " average persistent put %.0f bytes)', log_write_mb_per_sec, 100 * log_utilisation,"
                ~ " reference_mb_per_sec, log_dasd_model, reference_message_bytes, avg_persistent_put_bytes)"
            ) }},
            {{ mp16_rule_firing(
                mp16, 'LOG03', 'log_records_per_checkpoint',
                "format_string('%.0f log records per checkpoint (%s: %d records, %d checkpoint(s) in this interval)',"
                ~ " log_records_per_checkpoint, log03_basis, cast(case log03_basis when 'since the previous checkpoint'"
                ~ " then log_write_requests_since_checkpoint else log_write_requests end as bigint),"
                ~ " cast(checkpoints as bigint))",
                "case log03_basis when 'since the previous checkpoint' then 'checkpoint cycle' else 'interval' end"
            ) }},
            {{ mp16_firing(
                'LOG04', 'log04_level', 'log04_level', 'coalesce(log_fill_minutes, offloads_per_hour)',
                "case when active_log_mb is not null then " ~ mp16_severity_threshold(mp16, 'LOG04', 'log04_level')
                ~ " else " ~ mp16_threshold(mp16, 'LOG04', 'offloads_per_hour') ~ " end",
                "case when active_log_mb is not null then format_string('an active log of %.0f MB fills in %.1f minutes"
                ~ " at %.2f MB/s', active_log_mb, log_fill_minutes, log_write_mb_per_sec) else format_string('%.1f"
                ~ " active log offloads per hour (QJSTALW %d over %d archive copies; active log size not configured)',"
                ~ " offloads_per_hour, cast(archive_write_allocations as bigint), archive_copies) end",
                comparison="case when active_log_mb is null then '>' end"
            ) }},
            {{ mp16_rule_firing(
                mp16, 'LOG06', 'reads_from_archive_log',
                "format_string('QJSTRARH %d log reads from archive logs', cast(reads_from_archive_log as bigint))"
            ) }},
            {{ mp16_rule_firing(
                mp16, 'LOG07', 'copy_io_ratio',
                "format_string('multi-CI log writes average %.0f us on copy 1 and %.0f us on copy 2',"
                ~ " copy1_multi_ci_avg_io_us, copy2_multi_ci_avg_io_us)"
            ) }},
            {{ mp16_rule_firing(
                mp16, 'LOG08', 'single_ci_avg_io_us',
                "format_string('single-CI log writes average %.0f us (copy 1) and %.0f us (copy 2)',"
                ~ " copy1_single_ci_avg_io_us, coalesce(copy2_single_ci_avg_io_us, 0))"
            ) }},
            {{ mp16_rule_firing(
                mp16, 'LOG09', 'serial_write_share',
                "format_string('QJSTSERW %d serial writes of QJSTLOGW %d log write I/Os with dual logging',"
                ~ " cast(serial_writes as bigint), cast(log_write_ios as bigint))"
            ) }},
            {{ mp16_rule_firing(
                mp16, 'LOG10', safe_divide('log_bytes', 'expected_log_bytes'),
                "format_string('%.0f MB of log written against %.0f MB MP16 expects (%d persistent puts of %.0f"
                ~ " bytes on average, %d gets, %.1f MB for channel batches)', log_bytes / 1048576,"
                ~ " expected_log_bytes / 1048576, cast(persistent_puts as bigint), coalesce(avg_persistent_put_bytes, 0),"
                ~ " cast(gets as bigint), channel_batch_log_bytes / 1048576)"
            ) }},
            {{ mp16_rule_firing(
                mp16, 'LOG14', 'log_utilisation',
                "format_string('dual logging while the log runs at %.0f %% of its reference rate (%.1f MB/s)',"
                ~ " 100 * log_utilisation, log_write_mb_per_sec)"
            ) }},
            {{ mp16_rule_firing(
                mp16, 'LOG13', 'log13_ratio',
                "format_string('page sets backed up every %.1f h: %.0f MB of log written in the %.1f h before the"
                ~ " end of this interval (%.0f MB per hour in it); a restart within %.0f minutes reads %.0f MB"
                ~ " (log read at %.0f MB/s: %s%s)', page_set_backup_hours, log_mb_since_backup,"
                ~ " page_set_backup_hours, log_mb_per_hour, restart_target_minutes, recoverable_log_mb,"
                ~ " log_read_mb_per_sec, case when is_log_read_rate_declared then 'the rate the site declares'"
                ~ " else 'the MP16 default, the site declares none' end, case when active_log_mb * active_log_count"
                ~ " is not null then format_string('; the active logs hold %.0f MB', active_log_mb * active_log_count)"
                ~ " else '' end)"
            ) }},
            {{ mp16_rule_firing(
                mp16, 'LOG15', 'multi_ci_write_share',
                "format_string('%d of %d log write I/Os (copy 1) wrote more than one CI (%.0f %%) on active logs the"
                ~ " site declares not striped', cast(copy1_multi_ci_ios as bigint),"
                ~ " cast(copy1_single_ci_ios + copy1_multi_ci_ios as bigint), 100 * multi_ci_write_share)"
            ) }}
    {% endcall %}
),

-- LOG11: log volume skew across the members of a queue-sharing group in the same (aligned) interval.
qsg_members as (
    select
        qsg_name,
        aligned_interval_end_at,
        count(*) as members,
        avg(log_write_mb_per_sec) as mean_mb_per_sec,
        max(log_write_mb_per_sec) as max_mb_per_sec,
        max_by(qmgr_name, log_write_mb_per_sec) as busiest_qmgr_name,
        max_by(interval_start_at, log_write_mb_per_sec) as interval_start_at,
        max_by(interval_end_at, log_write_mb_per_sec) as interval_end_at
    from stats
    where qsg_name is not null
    group by qsg_name, aligned_interval_end_at
),

log11 as (
    select
        'LOG11' as rule_id,
        {{ mp16_severity(mp16, 'LOG11', safe_divide('max_mb_per_sec', 'mean_mb_per_sec')) }} as severity,
        {{ mp16_severity(mp16, 'LOG11', safe_divide('max_mb_per_sec', 'mean_mb_per_sec')) }} as threshold_level,
        busiest_qmgr_name as qmgr_name,
        qsg_name,
        'log' as object_type,
        busiest_qmgr_name as object_name,
        interval_start_at,
        interval_end_at,
        'queue-sharing group interval' as evaluation_window,
        {{ safe_divide('max_mb_per_sec', 'mean_mb_per_sec') }} as observed_value,
        cast({{ mp16_threshold(mp16, 'LOG11', 'info') }} as double) as threshold_value,
        format_string(
            '%.2f MB/s of log against a mean of %.2f MB/s over the %d members of %s',
            max_mb_per_sec, mean_mb_per_sec, members, qsg_name
        ) as observation,
        cast(null as string) as applied_comparison
    from qsg_members
    where members >= 2
),

-- CF17: the QSG's members at LOG02 (warning or critical) in the same (aligned) interval.
qsg_log_bound as (
    select
        qsg_name,
        aligned_interval_end_at,
        count(*) as members,
        count(log02_level) as members_at_log02,
        min(log_utilisation) as lowest_utilisation,
        max_by(qmgr_name, log_write_mb_per_sec) as busiest_qmgr_name,
        max_by(interval_start_at, log_write_mb_per_sec) as interval_start_at,
        max_by(interval_end_at, log_write_mb_per_sec) as interval_end_at
    from levels
    where qsg_name is not null
    group by qsg_name, aligned_interval_end_at
),

cf17 as (
    select
        'CF17' as rule_id,
        {{ mp16_severity(mp16, 'CF17', 'members_at_log02 / members') }} as severity,
        {{ mp16_severity(mp16, 'CF17', 'members_at_log02 / members') }} as threshold_level,
        busiest_qmgr_name as qmgr_name,
        qsg_name,
        'queue_sharing_group' as object_type,
        qsg_name as object_name,
        interval_start_at,
        interval_end_at,
        'queue-sharing group interval' as evaluation_window,
        members_at_log02 / members as observed_value,
        cast({{ mp16_threshold(mp16, 'CF17', 'info') }} as double) as threshold_value,
        format_string(
            'LOG02 fires on all %d members of %s (log at %.0f %% or more of its reference rate on each)',
            members, qsg_name, 100 * lowest_utilisation
        ) as observation,
        cast(null as string) as applied_comparison
    from qsg_log_bound
    where members >= {{ mp16_threshold(mp16, 'CF17', 'min_members') }}
),

final as (
    select * from per_queue_manager
    union all
    select * from log11
    union all
    select * from cf17
)

select * from final
where severity is not null
