-- MP16 coupling facility rules CF01-CF08, CF15, CF16 and LOG12 on each queue manager's use
-- of each CF structure (fct_cf_structure_qmgr_stats, QEST); CF04, CF15 and CF16 also read the shared
-- queues' use of the structure on that queue manager in the same interval (int_mp16__shared_queue_cf_usage,
-- from QQST: MQGETs, peak depths in CF storage, the largest message got).
-- CF11 judges each queue manager's shared message data set of a structure (QESD, from staging).
-- CF04 needs min_volume MQGETs on the structure's shared queues. CF05 judges the single-entry
-- average service time against the absolute limit and its baseline, and the multi-entry average
-- (longer by nature: more data per request) against its own baseline; each with min_volume requests.
-- CF07 judges application structures (CSQ_ADMIN holds no messages) with min_volume entries in use.
-- CF06, CF08 and CF15 need the structure's maximum entries / elements and SIZE, which SMF does not
-- record: from
-- the site configuration (seed site_config_cf_structures or var mp16_cf_structure_config; the most
-- specific row that sets a limit wins); a structure without them is not judged. CF08 shares
-- CSQ_ADMIN's free entries among the queue managers the statistics place in the QSG. CF15 counts
-- each queue manager's peak depths of the structure's shared queues in CF storage: per message the
-- 256-byte elements its average size takes with the entry overhead, at least a minimum entry, plus
-- the entry's control; above the largest message an entry holds, the offloaded message's footprint
-- (MP16 "Application structures", ch. 2, p. 74; parameters in the seed).
-- CF16 needs the structure's SIZE and CFLEVEL: at CFLEVEL 4 or below each queue manager of the QSG
-- keeps up to dead_messages_per_qmgr deleted messages in it (its batch delete table), each the CF
-- storage (as CF15 sizes it) of the largest average message the queue manager got from the
-- structure's shared queues; silent without both settings.
-- LOG12 needs the structure's recovery target and BACKUP CFSTRUCT interval (site settings): in each
-- interval the log each member of the QSG wrote since the last backup (the declared interval before
-- the interval's end); the logs are read backwards in parallel, the one with most data since the
-- backup sets the replay time, at MP16's backward read rate, against the target; reported on that
-- queue manager; silent for a structure without both settings.
-- Grain: one row per rule x queue manager x CF structure x interval that fires.
{%- set mp16 = mp16_rule_parameters() %}
{%- set baseline_intervals = [mp16_threshold(mp16, 'CF05', 'baseline_intervals') | float | int, 1] | max %}
{%- set admin_structure = 'CSQ_ADMIN' %}
{%- set log12_read = mp16_threshold(mp16, 'LOG12', 'backward_read_mb_per_sec') %}
{%- set structure_settings = {
    'entries_max': 'bigint', 'elements_max': 'bigint', 'size_mb': 'double', 'cf_level': 'int',
    'recovery_target_minutes': 'double', 'backup_interval_minutes': 'double',
} %}

with

cf_stats as (
    select * from {{ ref('fct_cf_structure_qmgr_stats') }}
),

structure_config as (
    {{ mp16_site_config('site_config_cf_structures', 'mp16_cf_structure_config', dict(
        qsg_name='string', structure_name='string', **structure_settings
    )) }}
),

structure_keys as (
    select distinct
        qsg_name,
        structure_name
    from cf_stats
),

-- Each setting from the most specific row that sets it (QSG and structure named first, a var row
-- before a seed row of the same specificity).
structure_limits as (
    {{ mp16_resolved_settings(
        'structure_keys', ['qsg_name', 'structure_name'], 'structure_config',
        [('qsg_name', 'qsg_name'), ('structure_name', 'structure_name')], structure_settings, 'configuration_rows'
    ) }}
),

qsg_members as (
    select
        qsg_name,
        count(distinct qmgr_name) as qsg_qmgrs
    from {{ ref('int_smf__qmgr_qsg') }}
    where qsg_name is not null
    group by qsg_name
),

-- The shared queues' use of each structure on each queue manager, per interval (an interval whose
-- rows straddle two interval dates is summed here).
shared_queue_gets as (
    select
        qmgr_name,
        structure_name,
        aligned_interval_end_at,
        sum(gets) as gets,
        sum(peak_message_bytes) as peak_message_bytes,
        max(largest_got_message_bytes) as largest_got_message_bytes
    from {{ ref('int_mp16__shared_queue_cf_usage') }}
    group by qmgr_name, structure_name, aligned_interval_end_at
),

stats as (
    select
        cf_stats.qmgr_name,
        cf_stats.qsg_name,
        cf_stats.structure_name,
        cf_stats.interval_start_at,
        cf_stats.interval_end_at,
        cast(cf_stats.structure_full_count as double) as structure_full_count,
        cast(cf_stats.requests as double) as requests,
        cast(cf_stats.redrives as double) as redrives,
        cast(cf_stats.single_entry_requests as double) as single_entry_requests,
        cast(cf_stats.multi_entry_requests as double) as multi_entry_requests,
        cf_stats.multi_entry_avg_service_time_us,
        avg(cf_stats.multi_entry_avg_service_time_us) over (
            partition by cf_stats.qmgr_name, cf_stats.structure_name order by cf_stats.interval_start_at
            rows between {{ baseline_intervals }} preceding and 1 preceding
        ) as multi_entry_baseline_us,
        cf_stats.redrive_pct,
        cast(cf_stats.entries_in_use_max as double) as entries_in_use_max,
        cast(cf_stats.elements_in_use_max as double) as elements_in_use_max,
        cf_stats.elements_per_entry,
        cf_stats.single_entry_avg_service_time_us,
        cast(structure_limits.entries_max as double) as entries_max,
        cast(structure_limits.elements_max as double) as elements_max,
        -- Spark's greatest() skips NULL: a structure with one limit known is judged on it.
        100 * greatest(
            cf_stats.entries_in_use_max / structure_limits.entries_max,
            cf_stats.elements_in_use_max / structure_limits.elements_max
        ) as structure_used_pct,
        qsg_members.qsg_qmgrs,
        (structure_limits.entries_max - cf_stats.entries_in_use_max) / qsg_members.qsg_qmgrs
            as admin_free_entries_per_qmgr,
        structure_limits.size_mb,
        cast(shared_queue_gets.peak_message_bytes as double) as peak_message_bytes,
        {{ mp16_threshold(mp16, 'CF15', 'overhead_factor') }} * shared_queue_gets.peak_message_bytes
        / (structure_limits.size_mb * 1048576) as structure_need_share,
        cast(shared_queue_gets.gets as double) as shared_queue_gets,
        structure_limits.cf_level,
        cast(shared_queue_gets.largest_got_message_bytes as double) as largest_got_message_bytes,
        qsg_members.qsg_qmgrs * {{ mp16_threshold(mp16, 'CF16', 'dead_messages_per_qmgr') }}
        * shared_queue_gets.largest_got_message_bytes / (structure_limits.size_mb * 1048576) as batch_delete_share,
        {{ safe_divide('cf_stats.redrives', 'shared_queue_gets.gets') }} as redrives_per_get,
        avg(cf_stats.single_entry_avg_service_time_us) over (
            partition by cf_stats.qmgr_name, cf_stats.structure_name order by cf_stats.interval_start_at
            rows between {{ baseline_intervals }} preceding and 1 preceding
        ) as service_time_baseline_us
    from cf_stats
    left join structure_limits
        on cf_stats.qsg_name = structure_limits.qsg_name and cf_stats.structure_name = structure_limits.structure_name
    left join qsg_members on cf_stats.qsg_name = qsg_members.qsg_name
    left join shared_queue_gets
        on
            cf_stats.qmgr_name = shared_queue_gets.qmgr_name
            and cf_stats.structure_name = shared_queue_gets.structure_name
            and cf_stats.aligned_interval_end_at = shared_queue_gets.aligned_interval_end_at
),

levels as (
    select
        *,
        case
            when structure_name != '{{ admin_structure }}'
                then {{ mp16_severity(mp16, 'CF01', 'structure_full_count') }}
        end as cf01_level,
        case
            when structure_name = '{{ admin_structure }}' then {{ mp16_severity(mp16, 'CF02', 'structure_full_count') }}
        end as cf02_level,
        case
            when requests >= {{ mp16_threshold(mp16, 'CF03', 'min_volume') }}
                then {{ mp16_severity(mp16, 'CF03', 'redrive_pct') }}
        end as cf03_level,
        case
            when shared_queue_gets >= {{ mp16_threshold(mp16, 'CF04', 'min_volume') }}
                then {{ mp16_severity(mp16, 'CF04', 'redrives_per_get') }}
        end as cf04_level,
        case
            when single_entry_requests >= {{ mp16_threshold(mp16, 'CF05', 'min_volume') }}
                then coalesce(
                    {{ mp16_severity(mp16, 'CF05', 'single_entry_avg_service_time_us') }},
                    case
                        when
                            single_entry_avg_service_time_us
                            > {{ mp16_threshold(mp16, 'CF05', 'baseline_factor') }} * service_time_baseline_us
                            then {{ mp16_rule_text(mp16, 'CF05', 'base_severity') }}
                    end
                )
        end as cf05_single_level,
        case
            when
                multi_entry_requests >= {{ mp16_threshold(mp16, 'CF05', 'min_volume') }}
                and multi_entry_avg_service_time_us
                > {{ mp16_threshold(mp16, 'CF05', 'baseline_factor') }} * multi_entry_baseline_us
                then {{ mp16_rule_text(mp16, 'CF05', 'base_severity') }}
        end as cf05_multi_level,
        {{ mp16_severity(mp16, 'CF06', 'structure_used_pct') }} as cf06_level,
        case
            when structure_name = '{{ admin_structure }}'
                then {{ mp16_severity(mp16, 'CF08', 'admin_free_entries_per_qmgr') }}
        end as cf08_level,
        {{ mp16_severity(mp16, 'CF15', 'structure_need_share') }} as cf15_level,
        case
            when cf_level <= {{ mp16_threshold(mp16, 'CF16', 'max_cf_level') }}
                then {{ mp16_severity(mp16, 'CF16', 'batch_delete_share') }}
        end as cf16_level,
        case
            when
                structure_name != '{{ admin_structure }}'
                and entries_in_use_max >= {{ mp16_threshold(mp16, 'CF07', 'min_volume') }}
                then
                    case
                        when elements_per_entry < {{ mp16_threshold(mp16, 'CF07', 'low_ratio') }} then '<'
                        when elements_per_entry > {{ mp16_threshold(mp16, 'CF07', 'high_ratio') }} then '>'
                    end
        end as cf07_crossed
    from stats
),

cf05_levels as (
    select
        *,
        coalesce(cf05_single_level, cf05_multi_level) as cf05_level
    from levels
),

per_structure as (
    {% call mp16_fired_rows('cf05_levels', 'cf_structure', 'levels.structure_name') %}
            {{ mp16_rule_firing(
                mp16, 'CF01', 'structure_full_count',
                "format_string('QESTSFUL %d: the structure was full (puts failed with 2192)',"
                ~ " cast(structure_full_count as bigint))"
            ) }},
            {{ mp16_rule_firing(
                mp16, 'CF02', 'structure_full_count',
                "format_string('QESTSFUL %d: the admin structure was full (CSQE038E)', cast(structure_full_count as bigint))"
            ) }},
            {{ mp16_rule_firing(
                mp16, 'CF03', 'redrive_pct',
                "format_string('%.1f %% of %d CF requests were re-driven (%d redrives)', redrive_pct,"
                ~ " cast(requests as bigint), cast(redrives as bigint))"
            ) }},
            {{ mp16_rule_firing(
                mp16, 'CF04', 'redrives_per_get',
                "format_string('%d redrives for %d MQGETs of the shared queues in the structure',"
                ~ " cast(redrives as bigint), cast(shared_queue_gets as bigint))"
            ) }},
            {{ mp16_firing(
                'CF05', 'cf05_level', 'cf05_level',
                'case when cf05_single_level is not null then single_entry_avg_service_time_us'
                ~ ' else multi_entry_avg_service_time_us end',
                "case when cf05_single_level is null then "
                ~ mp16_threshold(mp16, 'CF05', 'baseline_factor') ~ " * multi_entry_baseline_us when "
                ~ mp16_crosses(mp16, 'CF05', 'warning', 'single_entry_avg_service_time_us')
                ~ " then " ~ mp16_threshold(mp16, 'CF05', 'warning') ~ " else "
                ~ mp16_threshold(mp16, 'CF05', 'baseline_factor') ~ " * service_time_baseline_us end",
                "case when cf05_single_level is not null then format_string('%.1f us per single-entry CF request"
                ~ " (baseline %.1f us) over %d requests', single_entry_avg_service_time_us, service_time_baseline_us,"
                ~ " cast(single_entry_requests as bigint)) else format_string('%.1f us per multi-entry CF request"
                ~ " (baseline %.1f us) over %d requests', multi_entry_avg_service_time_us, multi_entry_baseline_us,"
                ~ " cast(multi_entry_requests as bigint)) end"
            ) }},
            {{ mp16_rule_firing(
                mp16, 'CF06', 'structure_used_pct',
                "format_string('%.1f %% of the structure used: %d of %d entries (QESTMNUS / ENTSMAX), %d of %s elements"
                ~ " (QESTMLUS / ELEMMAX; limits from the site configuration)', structure_used_pct,"
                ~ " cast(entries_in_use_max as bigint), cast(entries_max as bigint), cast(elements_in_use_max as bigint),"
                ~ " coalesce(cast(cast(elements_max as bigint) as string), 'unknown'))"
            ) }},
            {{ mp16_rule_firing(
                mp16, 'CF08', 'admin_free_entries_per_qmgr',
                "format_string('%d free CSQ_ADMIN entries (ENTSMAX %d from the site configuration - QESTMNUS %d)"
                ~ " for the %d queue managers of the QSG: %.0f each', cast(entries_max - entries_in_use_max as bigint),"
                ~ " cast(entries_max as bigint), cast(entries_in_use_max as bigint), qsg_qmgrs,"
                ~ " admin_free_entries_per_qmgr)"
            ) }},
            {{ mp16_rule_firing(
                mp16, 'CF15', 'structure_need_share',
                "format_string('peak depths of the shared queues would take %.0f MB (%.0f MB of messages x "
                ~ mp16_threshold(mp16, 'CF15', 'overhead_factor') ~ "), %.0f %% of the structure SIZE of %.0f MB"
                ~ " (site configuration)', structure_need_share * size_mb, peak_message_bytes / 1048576,"
                ~ " 100 * structure_need_share, size_mb)"
            ) }},
            {{ mp16_rule_firing(
                mp16, 'CF16', 'batch_delete_share',
                "format_string('%d queue managers x %d deleted messages of up to %.0f bytes in the CF (largest average"
                ~ " message got from the shared queues) = %.1f MB awaiting batch delete, %.0f %% of the structure SIZE of"
                ~ " %.0f MB at CFLEVEL(%d) (site configuration)', qsg_qmgrs, cast("
                ~ mp16_threshold(mp16, 'CF16', 'dead_messages_per_qmgr') ~ " as int), largest_got_message_bytes,"
                ~ " batch_delete_share * size_mb, 100 * batch_delete_share, size_mb, cf_level)"
            ) }},
            {{ mp16_firing(
                'CF07', "case when cf07_crossed is not null then " ~ mp16_rule_text(mp16, 'CF07', 'base_severity') ~ " end",
                "case when cf07_crossed is not null then 'info' end", 'elements_per_entry',
                "case cf07_crossed when '<' then " ~ mp16_threshold(mp16, 'CF07', 'low_ratio')
                ~ " else " ~ mp16_threshold(mp16, 'CF07', 'high_ratio') ~ " end",
                "format_string('%.1f elements per entry in use (QESTMLUS %d / QESTMNUS %d) against the 6 : 1 the"
                ~ " structure was allocated with: %s run out first', elements_per_entry, cast(elements_in_use_max"
                ~ " as bigint), cast(entries_in_use_max as bigint), case cf07_crossed when '<' then 'entries'"
                ~ " else 'elements' end)",
                comparison='cf07_crossed'
            ) }}
    {% endcall %}
),

-- CF11: each queue manager's shared message data set (SMDS) of a structure.
smds as (
    select
        smds.qmgr_name,
        qmgr_qsg.qsg_name,
        smds.structure_name,
        smds.interval_start_at,
        smds.interval_end_at,
        cast(smds.smds_blocks_used as double) as blocks_used,
        cast(smds.smds_blocks_total as double) as blocks_total,
        cast(smds.smds_allocate_failed_count as double) as allocate_failures,
        {{ safe_divide('smds.smds_blocks_used', 'smds.smds_blocks_total') }} as used_share
    from {{ ref('stg_smf__qesd') }} as smds
    left join {{ ref('int_smf__qmgr_qsg') }} as qmgr_qsg on smds.qmgr_name = qmgr_qsg.qmgr_name
),

smds_levels as (
    select
        *,
        case
            when {{ mp16_crosses(mp16, 'CF11', 'escalation', 'allocate_failures') }} then 'escalation'
            else {{ mp16_severity(mp16, 'CF11', 'used_share') }}
        end as cf11_level
    from smds
),

cf11 as (
    select
        'CF11' as rule_id,
        case
            when cf11_level = 'escalation' then {{ mp16_rule_text(mp16, 'CF11', 'escalation_severity') }}
            else cf11_level
        end as severity,
        cf11_level as threshold_level,
        qmgr_name,
        qsg_name,
        'smds' as object_type,
        structure_name as object_name,
        interval_start_at,
        interval_end_at,
        'interval' as evaluation_window,
        case when cf11_level = 'escalation' then allocate_failures else used_share end as observed_value,
        cast(
            case
                when cf11_level = 'escalation' then {{ mp16_threshold(mp16, 'CF11', 'escalation') }}
                else {{ mp16_severity_threshold(mp16, 'CF11', 'cf11_level') }}
            end as double
        ) as threshold_value,
        format_string(
            '%.1f %% of the data set used (QESDSMBU %d of QESDSMBT %d blocks), %d failed allocations (QESDSMFL)',
            100 * used_share, cast(blocks_used as bigint), cast(blocks_total as bigint),
            cast(allocate_failures as bigint)
        ) as observation,
        cast(null as string) as applied_comparison
    from smds_levels
),

-- LOG12: in each queue-sharing group interval, the log each member wrote since the structure's last
-- backup (its declared BACKUP CFSTRUCT interval before the member's interval end; each interval's log
-- in proportion to its overlap with that window, missing intervals adding nothing); the member with
-- the most sets the replay time, read backwards at MP16's rate against the recovery target.
member_logs as (
    select
        qmgr_name,
        qsg_name,
        interval_start_at,
        interval_end_at,
        aligned_interval_end_at,
        cast(log_cis_created as double) * 4096 / 1048576 as log_mb
    from {{ ref('fct_log_stats') }}
    where qsg_name is not null
),

structure_recovery as (
    select
        qsg_name,
        structure_name,
        recovery_target_minutes,
        backup_interval_minutes
    from structure_limits
    where recovery_target_minutes is not null and backup_interval_minutes is not null
),

member_logs_since_backup as (
    select
        judged.qsg_name,
        judged.aligned_interval_end_at,
        judged.qmgr_name,
        judged.interval_start_at,
        judged.interval_end_at,
        structure_recovery.structure_name,
        structure_recovery.recovery_target_minutes,
        structure_recovery.backup_interval_minutes,
        sum(
            written.log_mb * greatest(
                least(unix_micros(written.interval_end_at), unix_micros(judged.interval_end_at))
                - greatest(
                    unix_micros(written.interval_start_at),
                    unix_micros(judged.interval_end_at) - structure_recovery.backup_interval_minutes * 60000000
                ),
                0
            ) / (unix_micros(written.interval_end_at) - unix_micros(written.interval_start_at))
        ) as log_mb_since_backup
    from member_logs as judged
    inner join structure_recovery on judged.qsg_name = structure_recovery.qsg_name
    inner join member_logs as written
        on
            judged.qmgr_name = written.qmgr_name
            and judged.interval_end_at > written.interval_start_at
            and written.interval_end_at > written.interval_start_at
            and unix_micros(judged.interval_end_at) - structure_recovery.backup_interval_minutes * 60000000
            < unix_micros(written.interval_end_at)
    group by
        judged.qsg_name,
        judged.aligned_interval_end_at,
        judged.qmgr_name,
        judged.interval_start_at,
        judged.interval_end_at,
        structure_recovery.structure_name,
        structure_recovery.recovery_target_minutes,
        structure_recovery.backup_interval_minutes
),

structure_backups as (
    select
        qsg_name,
        aligned_interval_end_at,
        structure_name,
        max(recovery_target_minutes) as recovery_target_minutes,
        max(backup_interval_minutes) as backup_interval_minutes,
        max(log_mb_since_backup) as busiest_log_mb,
        max_by(qmgr_name, log_mb_since_backup) as qmgr_name,
        max_by(interval_start_at, log_mb_since_backup) as interval_start_at,
        max_by(interval_end_at, log_mb_since_backup) as interval_end_at
    from member_logs_since_backup
    group by qsg_name, aligned_interval_end_at, structure_name
),

structure_backup_ratios as (
    select
        *,
        recovery_target_minutes * 60 * {{ log12_read }} as readable_log_mb,
        {{ safe_divide('busiest_log_mb', 'recovery_target_minutes * 60 * ' ~ log12_read) }} as log_since_backup_ratio
    from structure_backups
),

structure_backup_levels as (
    select
        *,
        {{ mp16_severity(mp16, 'LOG12', 'log_since_backup_ratio') }} as log12_level
    from structure_backup_ratios
),

log12 as (
    select
        'LOG12' as rule_id,
        log12_level as severity,
        log12_level as threshold_level,
        qmgr_name,
        qsg_name,
        'cf_structure' as object_type,
        structure_name as object_name,
        interval_start_at,
        interval_end_at,
        'queue-sharing group interval' as evaluation_window,
        log_since_backup_ratio as observed_value,
        cast({{ mp16_threshold(mp16, 'LOG12', 'warning') }} as double) as threshold_value,
        format_string(
            'backed up every %.0f minutes: %s, the busiest log of %s, wrote %.0f MB in the %.0f minutes before the'
            || ' end of this interval; a recovery within %.1f minutes reads back %.0f MB (log read backwards at'
            || ' %.0f MB/s)',
            backup_interval_minutes, qmgr_name, qsg_name, busiest_log_mb, backup_interval_minutes,
            recovery_target_minutes, readable_log_mb,
            cast({{ log12_read }} as double)
        ) as observation,
        cast(null as string) as applied_comparison
    from structure_backup_levels
),

final as (
    select * from per_structure
    union all
    select * from cf11
    union all
    select * from log12
)

select * from final
where severity is not null
