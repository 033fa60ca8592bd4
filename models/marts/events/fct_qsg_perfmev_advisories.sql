-- PERFMEV of every queue-sharing group member, and whether the group's members differ. IBM
-- recommends the same PERFMEV setting on every member ("Shared queues and queue depth events", IBM
-- MQ for z/OS documentation): a member with PERFMEV(DISABLED) writes no shared-queue event
-- messages. The setting comes from the dbt var perfmev_settings when declared
-- ({qmgr_name: QM01, perfmev: DISABLED}), else it is inferred from the event groups: a member
-- that answered is ENABLED, one that stayed silent while active is DISABLED, one that did both
-- changed its setting during the data (VARIES); no evidence leaves it UNKNOWN.
-- Grain: one row per queue-sharing group member.
{%- set declared = var('perfmev_settings', []) %}
with

members as (
    select
        qmgr_name,
        qsg_name
    from {{ ref('int_smf__qmgr_qsg') }}
    where is_qsg_member
),

declared as (
    select
        qmgr_name,
        upper(perfmev) as perfmev
    from
        values
        {%- for row in declared %}
            ({{ mqsmf_sql_string(row['qmgr_name']) }}, {{ mqsmf_sql_string(row['perfmev']) }}, true),
        {%- endfor %}
        (null, null, false) as declared_rows (qmgr_name, perfmev, is_declared)
    where is_declared
),

groups as (
    select * from {{ ref('fct_shared_queue_event_groups') }}
),

evidence as (
    select
        members.qmgr_name,
        count_if(array_contains(groups.answering_qmgrs, members.qmgr_name)) as groups_answered,
        count_if(array_contains(groups.silent_active_qmgrs, members.qmgr_name)) as groups_silent_while_active
    from members
    left join groups on members.qsg_name = groups.qsg_name
    group by members.qmgr_name
),

settings as (
    select
        members.qsg_name,
        members.qmgr_name,
        evidence.groups_answered,
        evidence.groups_silent_while_active,
        coalesce(
            declared.perfmev,
            case
                when evidence.groups_answered > 0 and evidence.groups_silent_while_active > 0 then 'VARIES'
                when evidence.groups_answered > 0 then 'ENABLED'
                when evidence.groups_silent_while_active > 0 then 'DISABLED'
                else 'UNKNOWN'
            end
        ) as perfmev,
        case
            when declared.perfmev is not null then 'var perfmev_settings'
            when evidence.groups_answered + evidence.groups_silent_while_active > 0 then 'inferred from event groups'
            else 'no evidence'
        end as perfmev_source
    from members
    left join evidence on members.qmgr_name = evidence.qmgr_name
    left join declared on members.qmgr_name = declared.qmgr_name
),

final as (
    select
        qsg_name,
        qmgr_name,
        perfmev,
        perfmev_source,
        groups_answered,
        groups_silent_while_active,
        size(array_distinct(
            collect_list(case when perfmev in ('ENABLED', 'DISABLED', 'VARIES') then perfmev end)
                over (partition by qsg_name)
        )) > 1
        or count_if(perfmev = 'VARIES') over (partition by qsg_name) > 0 as qsg_settings_differ,
        case
            when perfmev in ('DISABLED', 'VARIES')
                then concat(
                    'PERFMEV is ', perfmev, ' on ', qmgr_name, ': it writes no event messages for shared queues ',
                    'while other members do. Give every member of ', qsg_name, ' the same PERFMEV setting ',
                    '(IBM MQ for z/OS: Shared queues and queue depth events).'
                )
        end as advice
    from settings
)

select * from final
