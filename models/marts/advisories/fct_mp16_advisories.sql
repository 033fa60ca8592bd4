-- What MP16 would tell an analyst about every statistics interval: the firings of every implemented
-- rule (the component models int_mp16__*_advisories) with the rule's severity, the value observed
-- against the threshold in force, where that threshold comes from (MP16 or engineering judgement),
-- the MP16 source and the recommended action.
-- A table rebuilt on every run from the components: advisories are few rows next to the facts they
-- are computed from. The queue and accounting rules' components, which read the largest fact, judge
-- only the days the loads changed (and all history again when a threshold or the site configuration
-- changes).
-- Grain: one row per rule x object (queue manager + object type + object name) x interval (for
-- windowed rules, the start of the window judged).

with

advisories as (
    {%- for component in [
        'buffer_pool', 'page_set', 'log', 'cf', 'queue', 'manager', 'db2', 'accounting', 'chin', 'channel_accounting',
        'supplementary'
    ] %}
        select
            rule_id,
            severity,
            threshold_level,
            qmgr_name,
            qsg_name,
            object_type,
            object_name,
            interval_start_at,
            interval_end_at,
            evaluation_window,
            observed_value,
            threshold_value,
            observation,
            applied_comparison
        from {{ ref('int_mp16__' ~ component ~ '_advisories') }}
        {%- if not loop.last %}
            union all
        {%- endif %}
    {%- endfor %}
),

rules as (
    select * from {{ ref('dim_mp16_rule') }}
),

described as (
    select
        advisories.*,
        rules.component,
        coalesce(
            advisories.applied_comparison,
            case advisories.threshold_level
                when 'escalation' then rules.escalation_comparison
                else rules.comparison
            end
        ) as comparison,
        case advisories.threshold_level
            when 'info' then rules.info_threshold_source
            when 'warning' then rules.warning_threshold_source
            when 'critical' then rules.critical_threshold_source
            when 'escalation' then rules.escalation_threshold_source
        end as threshold_source,
        rules.threshold_unit,
        rules.overridden_parameters,
        rules.meaning,
        rules.recommended_action,
        rules.mp16_reference,
        rules.smf_fields
    from advisories
    inner join rules on advisories.rule_id = rules.rule_id
),

final as (
    select
        {{ surrogate_key([
            'rule_id', 'qmgr_name', 'object_type', 'object_name', 'unix_micros(interval_start_at)'
        ]) }} as advisory_key,
        rule_id,
        severity,
        case severity when 'critical' then 3 when 'warning' then 2 when 'info' then 1 end as severity_rank,
        component,
        qmgr_name,
        qsg_name,
        object_type,
        object_name,
        interval_start_at,
        interval_end_at,
        -- The UTC day the judged interval or window ends in (its last microsecond), like the QSG facts.
        {{ aligned_interval_date('interval_end_at') }} as advisory_date,
        evaluation_window,
        observed_value,
        threshold_value,
        comparison,
        threshold_level,
        threshold_source,
        threshold_unit,
        overridden_parameters is not null as is_threshold_overridden,
        observation,
        concat(
            rule_id, ' ', severity, ' on ', qmgr_name, ' ', replace(object_type, '_', ' '),
            case
                when
                    object_type in (
                        'log', 'message_manager', 'data_manager', 'db2_manager', 'storage_manager', 'lock_manager'
                    )
                    then ''
                else concat(' ', object_name)
            end,
            ': ', observation,
            case
                when threshold_value is not null
                    then concat(
                        ' (', format_number(observed_value, 2), ' ', comparison, ' ', format_number(threshold_value, 2),
                        ', ', threshold_source, ' threshold)'
                    )
                else ''
            end,
            '. ', meaning, ' Action: ', recommended_action, ' Source: ', mp16_reference, '.'
        ) as message,
        meaning,
        recommended_action,
        mp16_reference,
        smf_fields
    from described
)

select * from final
