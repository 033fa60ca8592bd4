-- MP16 Db2 manager rules on the queue manager's Db2 statistics (Q5ST, SMF 115
-- subtype 2; written by queue managers in a queue-sharing group). No mart holds them yet, so they
-- are read from staging with the queue manager's QSG.
-- CF09: shared-queue messages above 63 KB stored as Db2 BLOBs (any BLOB request).
-- DB02: the slowest kind of Db2 request (read, write, update, delete, list) with min_volume
-- requests, by its average thread elapsed time.
-- DB03: shared channel status changes per hour against an absolute floor and the queue manager's
-- baseline (its average over the previous baseline_intervals intervals; none in its first).
-- DB01: many Db2 reads with little definitional activity and per queue open (QMSTOPEN; no successful
-- open at all passes), confirmed by class 3 accounting (fct_task_accounting): a task in an
-- accounting period overlapping the interval made Db2 requests, got and put nothing, and opened
-- queues or made other MQI calls (MP16's failed open of an undefined queue: "Other reqs" and a Db2
-- request, no WQ block). Without that confirmation it does not fire.
-- Grain: one row per rule x queue manager x interval that fires.
{%- set mp16 = mp16_rule_parameters() %}
{%- set baseline_intervals = [mp16_threshold(mp16, 'DB03', 'baseline_intervals') | float | int, 1] | max %}
{%- set request_kinds = {'read': 'READ', 'write': 'WRIT', 'update': 'UPDT', 'delete': 'DELE', 'list': 'LIST'} %}

with

db2 as (
    select * from {{ ref('stg_smf__q5st') }}
),

qmgr_qsg as (
    select * from {{ ref('int_smf__qmgr_qsg') }}
),

message_manager as (
    select
        qmgr_name,
        interval_start_at,
        open_count
    from {{ ref('stg_smf__qmst') }}
),

-- DB01's confirmation: tasks with Db2 requests that got and put nothing and opened queues (WQ
-- OPENN) or made other MQI calls (WTASOTN): MP16's failed open of an undefined queue has no WQ
-- block and shows as "Other reqs" with a Db2 request (MP16 "Frequent opening of un-defined queues").
open_only_db2_tasks as (
    select
        qmgr_name,
        period_start_at,
        period_end_at,
        db2_requests
    from {{ ref('fct_task_accounting') }}
    where db2_requests > 0 and (opens > 0 or other_mqi_calls > 0) and gets + puts + put1s = 0
),

confirmations as (
    select
        db2.qmgr_name,
        db2.interval_start_at,
        count(*) as open_only_tasks,
        sum(open_only_db2_tasks.db2_requests) as open_only_db2_requests
    from db2
    inner join open_only_db2_tasks
        on
            db2.qmgr_name = open_only_db2_tasks.qmgr_name
            and db2.interval_end_at > open_only_db2_tasks.period_start_at
            and db2.interval_start_at < open_only_db2_tasks.period_end_at
    group by db2.qmgr_name, db2.interval_start_at
),

stats as (
    select
        db2.qmgr_name,
        qmgr_qsg.qsg_name,
        db2.interval_start_at,
        db2.interval_end_at,
        cast(
            coalesce(db2.blob_select_count, 0) + coalesce(db2.blob_insert_count, 0)
            + coalesce(db2.blob_update_count, 0) + coalesce(db2.blob_delete_count, 0)
            + coalesce(db2.blob_list_count, 0)
            as double
        ) as blob_requests,
        cast(db2.blob_insert_count as bigint) as blob_inserts,
        {{ safe_divide('db2.read_count', 'db2.interval_seconds') }} as db2_reads_per_second,
        {{ safe_divide(
            'coalesce(db2.write_count, 0) + coalesce(db2.update_count, 0) + coalesce(db2.delete_count, 0)',
            'db2.read_count'
        ) }} as definition_share,
        {{ safe_divide('db2.read_count', 'message_manager.open_count') }} as reads_per_open,
        message_manager.open_count,
        cast(db2.read_count as bigint) as db2_reads,
        confirmations.open_only_tasks,
        confirmations.open_only_db2_requests,
        cast(db2.blob_select_count as bigint) as blob_selects,
        -- DB02: each kind's average thread time where it has min_volume requests.
        {%- for kind in request_kinds %}
        case
            when db2.{{ kind }}_count >= {{ mp16_threshold(mp16, 'DB02', 'min_volume') }}
                then {{ safe_divide('db2.' ~ kind ~ '_thread_time_total_us', 'db2.' ~ kind ~ '_count') }}
        end as {{ kind }}_avg_thread_us,
        {%- endfor %}
        3600 * {{ safe_divide(
            'coalesce(db2.scst_insert_count, 0) + coalesce(db2.scst_update_count, 0)'
            ~ ' + coalesce(db2.scst_delete_count, 0)',
            'db2.interval_seconds'
        ) }} as scst_changes_per_hour
    from db2
    left join qmgr_qsg on db2.qmgr_name = qmgr_qsg.qmgr_name
    left join message_manager
        on db2.qmgr_name = message_manager.qmgr_name and db2.interval_start_at = message_manager.interval_start_at
    left join confirmations
        on db2.qmgr_name = confirmations.qmgr_name and db2.interval_start_at = confirmations.interval_start_at
),

measures as (
    select
        *,
        greatest(
            {%- for kind in request_kinds %}
            {{ kind }}_avg_thread_us{{ ',' if not loop.last }}
            {%- endfor %}
        ) as slowest_avg_thread_us,
        case greatest(
            {%- for kind in request_kinds %}
            {{ kind }}_avg_thread_us{{ ',' if not loop.last }}
            {%- endfor %}
        )
            {%- for kind, prefix in request_kinds.items() %}
            when {{ kind }}_avg_thread_us then '{{ prefix }}'
            {%- endfor %}
        end as slowest_request_kind,
        avg(scst_changes_per_hour) over (
            partition by qmgr_name order by interval_start_at
            rows between {{ baseline_intervals }} preceding and 1 preceding
        ) as scst_changes_baseline
    from stats
),

levels as (
    select
        *,
        {{ mp16_severity(mp16, 'CF09', 'blob_requests') }} as cf09_level,
        {{ mp16_severity(mp16, 'DB02', 'slowest_avg_thread_us') }} as db02_level,
        case
            when
                open_only_tasks > 0
                and definition_share <= {{ mp16_threshold(mp16, 'DB01', 'max_definition_share') }}
                -- no successful open at all (QMSTOPEN 0): every read is a look-up
                and (open_count = 0 or reads_per_open > {{ mp16_threshold(mp16, 'DB01', 'min_reads_per_open') }})
                then {{ mp16_severity(mp16, 'DB01', 'db2_reads_per_second') }}
        end as db01_level,
        case
            when scst_changes_per_hour > {{ mp16_threshold(mp16, 'DB03', 'baseline_factor') }} * scst_changes_baseline
                then {{ mp16_severity(mp16, 'DB03', 'scst_changes_per_hour') }}
        end as db03_level
    from measures
),

final as (
    {% call mp16_fired_rows('levels', 'db2_manager', 'levels.qmgr_name') %}
            {{ mp16_rule_firing(
                mp16, 'DB01', 'db2_reads_per_second',
                "format_string('%.1f Db2 reads per second (READCNT %d, %.2f per queue open), writes, updates and"
                ~ " deletes %.1f %% of them; %d tasks made %d Db2 requests and only opened queues or made other MQI calls',"
                ~ " db2_reads_per_second, db2_reads, coalesce(reads_per_open, 0), 100 * definition_share, open_only_tasks,"
                ~ " open_only_db2_requests)"
            ) }},
            {{ mp16_rule_firing(
                mp16, 'CF09', 'blob_requests',
                "format_string('%d Db2 BLOB requests (LMSINS %d, LMSSEL %d): shared-queue messages above 63 KB"
                ~ " are held in Db2', cast(blob_requests as bigint), blob_inserts, blob_selects)"
            ) }},
            {{ mp16_rule_firing(
                mp16, 'DB02', 'slowest_avg_thread_us',
                "format_string('%s requests average %.0f us of thread time (%sTCUW / %sCNT)', slowest_request_kind,"
                ~ " slowest_avg_thread_us, slowest_request_kind, slowest_request_kind)"
            ) }},
            {{ mp16_firing(
                'DB03', 'db03_level', 'db03_level', 'scst_changes_per_hour',
                'greatest(' ~ mp16_threshold(mp16, 'DB03', 'info') ~ ', '
                ~ mp16_threshold(mp16, 'DB03', 'baseline_factor') ~ ' * scst_changes_baseline)',
                "format_string('%.0f shared channel status changes per hour (SCSINS + SCSUPD + SCSDEL; baseline"
                ~ " %.0f per hour)', scst_changes_per_hour, scst_changes_baseline)"
            ) }}
    {% endcall %}
)

select * from final
where severity is not null
