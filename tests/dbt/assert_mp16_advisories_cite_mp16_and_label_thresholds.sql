-- Every advisory cites its MP16 source by section of the MP16 report ("title" (ch. N, p. P); never a
-- line of a local copy, l.N) and says where the threshold it crossed comes from, and that label is
-- the seed's for that level (MP16 vs engineering judgement). Rows returned are violations.

with

advisories as (
    select * from {{ ref('fct_mp16_advisories') }}
),

rules as (
    select * from {{ ref('mp16_rules') }}
)

select
    advisories.rule_id,
    advisories.qmgr_name,
    advisories.object_name,
    advisories.interval_start_at,
    advisories.threshold_level,
    advisories.threshold_source,
    advisories.mp16_reference
from advisories
inner join rules on advisories.rule_id = rules.rule_id
where
    advisories.mp16_reference is null
    or not (advisories.mp16_reference like 'MP16 "%' or advisories.mp16_reference like 'not MP16%')
    or advisories.mp16_reference not rlike '"[^"]+" \\(ch\\. [0-9]+, p\\. [0-9]+\\)'
    or advisories.message rlike '\\bl\\.[0-9]'
    or advisories.threshold_source is null
    or advisories.threshold_source != case advisories.threshold_level
        when 'info' then rules.info_threshold_source
        when 'warning' then rules.warning_threshold_source
        when 'critical' then rules.critical_threshold_source
        when 'escalation' then rules.escalation_threshold_source
    end
    or advisories.message not like concat('%Action: ', rules.recommended_action, '%')
