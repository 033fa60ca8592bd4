{{ config(materialized='table') }}
-- The queue-sharing group of each queue manager. Before MQ 10 no header names it, so the evidence
-- is collected: the MQ 10 QWHX header, QQSTQSGN of shared queues, QCCTQSGN of the channel
-- initiator (latest observation wins). A queue manager with CF (QEST, QESD) or Db2 manager (Q5ST)
-- statistics is in a QSG even when nothing names it; it gets the placeholder 'unknown:<qmgr>' so
-- its QSG-grain rows stay separate and visible instead of being dropped.
-- A table, not a view: every fact joins it, and it is small.
-- Grain: one row per queue manager.

with

intervals as (
    select * from {{ ref('int_smf__qmgr_intervals') }}
),

named_observations as (
    select
        qmgr_name,
        header_qsg_name as qsg_name,
        interval_end_at as observed_at
    from intervals
    where header_qsg_name is not null

    union all

    select
        qmgr_name,
        shared_queue_qsg_name as qsg_name,
        shared_queue_qsg_named_at as observed_at
    from intervals
    where shared_queue_qsg_name is not null

    union all

    select
        qmgr_name,
        nullif(trim(chin_qsg_name), '') as qsg_name,
        record_created_at as observed_at
    from {{ ref('stg_smf__qcct') }}
),

known_names as (
    select
        qmgr_name,
        max_by(qsg_name, observed_at) as qsg_name
    from named_observations
    where qsg_name is not null
    group by qmgr_name
),

unnamed_members as (
    select distinct qmgr_name from {{ ref('stg_smf__qest') }}
    union
    select distinct qmgr_name from {{ ref('stg_smf__qesd') }}
    union
    select distinct qmgr_name from {{ ref('stg_smf__q5st') }}
),

queue_managers as (
    select distinct qmgr_name from intervals
),

final as (
    select
        queue_managers.qmgr_name,
        coalesce(
            known_names.qsg_name,
            case when unnamed_members.qmgr_name is not null then concat('unknown:', queue_managers.qmgr_name) end
        ) as qsg_name,
        known_names.qsg_name is not null as is_qsg_name_known,
        known_names.qsg_name is not null or unnamed_members.qmgr_name is not null as is_qsg_member
    from queue_managers
    left join known_names on queue_managers.qmgr_name = known_names.qmgr_name
    left join unnamed_members on queue_managers.qmgr_name = unnamed_members.qmgr_name
)

select * from final
