-- Supplementary rules SUP01-SUP03 (not MP16: the catalogue's own rules, with MP16 context, on
-- statistics MP16's rules leave unread). No mart holds the storage manager's statistics, so they are
-- read from staging with the queue manager's QSG.
-- SUP01-SUP03: the storage manager (QSST, SMF 115 subtype 1): storage became critical (short on
-- storage), abends for lack of storage, GETMAIN / FREEMAIN requests with a non-zero return code.
-- Grain: one row per rule x queue manager x object (its storage manager) x interval that fires.
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

final as (
    select * from storage_firings
)

select * from final
where severity is not null
