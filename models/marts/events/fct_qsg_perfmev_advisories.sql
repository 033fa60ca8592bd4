-- PERFMEV of every queue-sharing group member, and whether the group's members differ. IBM
-- recommends the same PERFMEV setting on every member ("Shared queues and queue depth events", IBM
-- MQ for z/OS documentation): a member with PERFMEV(DISABLED) writes no shared-queue event
-- messages. Where the setting comes from, first that applies: the dbt var perfmev_settings
-- ({qmgr_name: QM01, perfmev: DISABLED}, an override), the column perfmev of the seed
-- site_config_queue_managers (a row naming the queue manager before the '*' row; empty = unknown),
-- else inferred from the event groups: a member that answered is ENABLED, one that stayed silent
-- while active is DISABLED, one that did both changed its setting during the data (VARIES); no
-- evidence leaves it UNKNOWN.
-- Grain: one row per queue-sharing group member.
with

members as (
    select
        qmgr_name,
        qsg_name
    from {{ ref('int_smf__qmgr_qsg') }}
    where is_qsg_member
),

site_config as (
    {{ mp16_site_config(
        'site_config_queue_managers', 'perfmev_settings', {'qmgr_name': 'string', 'perfmev': 'string'}
    ) }}
),

site_settings as (
    select
        qmgr_name,
        upper(trim(perfmev)) as perfmev,
        from_var,
        (case when from_var then 2 else 0 end) + (case when qmgr_name != '*' then 1 else 0 end) as precedence
    from site_config
    where nullif(trim(perfmev), '') is not null
),

declared as (
    select
        members.qmgr_name,
        max_by(site_settings.perfmev, site_settings.precedence) as perfmev,
        max_by(site_settings.from_var, site_settings.precedence) as from_var
    from members
    inner join site_settings
        on members.qmgr_name = site_settings.qmgr_name or site_settings.qmgr_name = '*'
    group by members.qmgr_name
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
            when declared.from_var then 'var perfmev_settings'
            when declared.perfmev is not null then 'seed site_config_queue_managers'
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
