-- The MP16 role of every buffer pool (SYS, SHORT, LONG, OTHER or UNKNOWN; MP16 "Buffer pool usage"
-- (ch. 1, p. 19)) from the site configuration: seed site_config_buffer_pools plus the var
-- mp16_buffer_pool_roles. The most specific row wins (queue manager and pool named, then queue
-- manager named, then pool named, then '*' / '*'); a var row beats a seed row of the same
-- specificity. No matching row: UNKNOWN.
-- Grain: one row per queue manager x buffer pool seen in the statistics.

with

pools as (
    select
        qmgr_name,
        buffer_pool_id
    from {{ ref('dim_buffer_pool') }}
),

site_config as (
    {{ mp16_site_config('site_config_buffer_pools', 'mp16_buffer_pool_roles', {
        'qmgr_name': 'string', 'buffer_pool_id': 'string', 'role': 'string', 'description': 'string',
    }) }}
),

matches as (
    select
        pools.qmgr_name,
        pools.buffer_pool_id,
        upper(trim(site_config.role)) as pool_role,
        concat(
            case when site_config.from_var then 'var mp16_buffer_pool_roles' else 'seed site_config_buffer_pools' end,
            ' (', site_config.qmgr_name, ', ', site_config.buffer_pool_id, ')'
        ) as role_source,
        site_config.description as role_description,
        (case when site_config.qmgr_name != '*' then 4 else 0 end)
        + (case when site_config.buffer_pool_id != '*' then 2 else 0 end)
        + (case when site_config.from_var then 1 else 0 end) as precedence
    from pools
    inner join site_config
        on
            (pools.qmgr_name = site_config.qmgr_name or site_config.qmgr_name = '*')
            and (
                cast(pools.buffer_pool_id as string) = trim(site_config.buffer_pool_id)
                or site_config.buffer_pool_id = '*'
            )
),

chosen as (
    select
        qmgr_name,
        buffer_pool_id,
        max_by(pool_role, precedence) as pool_role,
        max_by(role_source, precedence) as role_source,
        max_by(role_description, precedence) as role_description
    from matches
    group by qmgr_name, buffer_pool_id
),

final as (
    select
        pools.qmgr_name,
        pools.buffer_pool_id,
        coalesce(chosen.pool_role, 'UNKNOWN') as pool_role,
        coalesce(chosen.role_source, 'default (no site configuration row matches)') as role_source,
        chosen.role_description
    from pools
    left join chosen on pools.qmgr_name = chosen.qmgr_name and pools.buffer_pool_id = chosen.buffer_pool_id
)

select * from final
