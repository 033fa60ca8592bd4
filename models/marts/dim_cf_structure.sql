-- Coupling facility application structures of each queue-sharing group, from every place that
-- names one: CF manager statistics (QEST), shared message data sets (QESD) and shared queues (QQSTCFST,
-- each queue's latest that day in int_queue_stats__daily: the dimension is rebuilt on every run, from
-- a row per queue and day instead of every interval of all history).
-- Grain: one row per queue-sharing group x CF structure.

with

qmgr_qsg as (
    select * from {{ ref('int_smf__qmgr_qsg') }}
),

sightings as (
    select
        qsg_name,
        structure_name,
        structure_number,
        qmgr_name,
        interval_start_at,
        interval_end_at,
        'QEST' as seen_in
    from {{ ref('int_cf_structure_stats__derived') }}

    union all

    select
        qmgr_qsg.qsg_name,
        smds.structure_name,
        smds.structure_number,
        smds.qmgr_name,
        smds.interval_start_at,
        smds.interval_end_at,
        'QESD' as seen_in
    from {{ ref('stg_smf__qesd') }} as smds
    left join qmgr_qsg on smds.qmgr_name = qmgr_qsg.qmgr_name

    union all

    select
        qsg_name,
        cf_structure_name as structure_name,
        cast(null as bigint) as structure_number,
        qmgr_name,
        first_interval_start_at as interval_start_at,
        last_interval_end_at as interval_end_at,
        'QQST' as seen_in
    from {{ ref('int_queue_stats__daily') }}
    where is_shared and cf_structure_name is not null
),

final as (
    select
        {{ surrogate_key(['qsg_name', 'structure_name']) }} as cf_structure_key,
        qsg_name,
        structure_name,
        max_by(structure_number, case when structure_number is not null then interval_end_at end)
            as structure_number,
        bool_or(seen_in = 'QESD') as has_smds,
        count(distinct case when seen_in = 'QEST' then qmgr_name end) as qmgrs_using,
        min(interval_start_at) as first_interval_start_at,
        max(interval_end_at) as last_interval_end_at
    from sightings
    where structure_name is not null and structure_name != ''
    group by qsg_name, structure_name
)

select * from final
