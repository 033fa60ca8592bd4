-- Advisories come only from rules the catalogue marks implemented, at a severity the rule can give
-- (its documented levels, one lower on UNKNOWN / OTHER buffer pools), and every implemented rule
-- with a comparison has at least one threshold. Rows returned are violations.

with

advisories as (
    select * from {{ ref('fct_mp16_advisories') }}
),

rules as (
    select * from {{ ref('dim_mp16_rule') }}
),

advisory_violations as (
    select
        advisories.rule_id,
        concat('advisory ', advisories.severity, ' on ', advisories.qmgr_name, ' ', advisories.object_name) as problem
    from advisories
    left join rules on advisories.rule_id = rules.rule_id
    where
        not coalesce(rules.is_implemented, false)
        or not (
            rules.severity like concat('%', advisories.severity, '%')
            or advisories.severity = 'info' and advisories.object_type = 'buffer_pool'
        )
),

catalogue_violations as (
    select
        rule_id,
        'implemented rule with a comparison but no threshold' as problem
    from rules
    where
        is_implemented
        and comparison is not null
        and coalesce(info_threshold, warning_threshold, critical_threshold) is null
)

select * from advisory_violations
union all
select * from catalogue_violations
