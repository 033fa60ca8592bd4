-- The QSG roll-ups' interval grid (macro qsg_grid_slots, var qsg_grid_seconds): for every QSG and
-- slot of a day on which any member wrote statistics, the members it is expected to hear from and
-- those it heard from. A queue manager outside any QSG (qsg_name NULL) has no row: it is in no
-- QSG's grid. A view (like the roll-ups), so a run that rebuilds only the facts sees new days.
-- Grain: one row per queue-sharing group x grid slot.
{%- set grid = qsg_grid_seconds() %}

with

qsg_members as (
    select
        intervals.qmgr_name,
        qmgr_qsg.qsg_name,
        unix_seconds(intervals.aligned_interval_start_at) as member_start_s,
        unix_seconds(intervals.aligned_interval_end_at) as member_end_s
    from {{ ref('int_smf__qmgr_intervals') }} as intervals
    inner join {{ ref('int_smf__qmgr_qsg') }} as qmgr_qsg on intervals.qmgr_name = qmgr_qsg.qmgr_name
    where
        qmgr_qsg.qsg_name is not null
        and intervals.aligned_interval_end_at > intervals.aligned_interval_start_at
),

member_slots as (
    select
        qsg_members.*,
        {{ qsg_grid_slots('qsg_members.member_start_s', 'qsg_members.member_end_s') }} as slot_start_s
    from qsg_members
),

-- Each member interval cut at the slot boundaries it crosses.
member_slices as (
    select
        qsg_name,
        qmgr_name,
        slot_start_s,
        {{ qsg_grid_overlap_seconds('member_start_s', 'member_end_s', 'slot_start_s') }} as overlap_seconds
    from member_slots
),

-- A member is expected on every slot of a UTC day on which it wrote any statistics.
member_days as (
    select distinct
        qsg_name,
        qmgr_name,
        date_from_unix_date(cast(floor(slot_start_s / 86400) as int)) as slot_date
    from member_slices
),

qsg_days as (
    select
        qsg_name,
        slot_date,
        count(*) as qmgrs_expected,
        array_join(array_sort(collect_list(qmgr_name)), ',') as expected_qmgr_names
    from member_days
    group by qsg_name, slot_date
),

day_slots as (
    select
        qsg_days.*,
        explode(sequence(
            cast(unix_date(qsg_days.slot_date) as bigint) * 86400,
            cast(unix_date(qsg_days.slot_date) as bigint) * 86400 + 86400 - {{ grid }},
            cast({{ grid }} as bigint)
        )) as slot_start_s
    from qsg_days
),

active as (
    select
        qsg_name,
        slot_start_s,
        count(distinct qmgr_name) as qmgrs_active,
        sum(overlap_seconds) as active_member_seconds
    from member_slices
    group by qsg_name, slot_start_s
),

final as (
    select
        day_slots.qsg_name,
        timestamp_seconds(day_slots.slot_start_s) as interval_start_at,
        timestamp_seconds(day_slots.slot_start_s + {{ grid }}) as interval_end_at,
        day_slots.slot_start_s,
        day_slots.slot_date as interval_date,
        day_slots.qmgrs_expected,
        day_slots.expected_qmgr_names,
        coalesce(active.qmgrs_active, 0) as qmgrs_active,
        coalesce(active.active_member_seconds, 0) as active_member_seconds,
        day_slots.qmgrs_expected * {{ grid }} as expected_member_seconds
    from day_slots
    left join active
        on day_slots.qsg_name = active.qsg_name and day_slots.slot_start_s = active.slot_start_s
)

select * from final
