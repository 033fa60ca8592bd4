-- The MP16 rule catalogue (seed mp16_rules) with the thresholds in force: the seed's values, or the
-- var mp16_thresholds where it overrides them (overridden_parameters lists those).
-- Grain: one row per rule.
{%- set overrides = mp16_threshold_overrides() %}
{%- set numeric_parameters = [
    ('info', 'info_threshold'), ('warning', 'warning_threshold'), ('critical', 'critical_threshold'),
    ('escalation', 'escalation_threshold'), ('min_volume', 'min_volume'), ('window', 'window_length'),
] %}

{#- Each numeric parameter column: the seed's, or a case over the rules the var overrides. #}
{%- set parameter_columns = {} %}
{%- for name, column in numeric_parameters %}
    {%- set whens = [] %}
    {%- for key, value in overrides.items() if key.split('_', 1)[1] == name %}
        {%- do whens.append("when '" ~ key.split('_', 1)[0] ~ "' then cast(" ~ (value | float) ~ " as double)") %}
    {%- endfor %}
    {%- do parameter_columns.update({
        column: ('case rule_id ' ~ whens | join(' ') ~ ' else ' ~ column ~ ' end as ' ~ column) if whens else column
    }) %}
{%- endfor %}

{#- overridden_parameters: the var entries of each overridden rule ('BP04_warning=20; ...'), else NULL. #}
{%- set overridden = [] %}
{%- for key, value in overrides.items() %}
    {%- do overridden.append((key.split('_', 1)[0], key ~ '=' ~ value)) %}
{%- endfor %}
{%- set overridden_whens = [] %}
{%- for rule_id, entries in overridden | groupby(0) %}
    {%- do overridden_whens.append(
        'when ' ~ mqsmf_sql_string(rule_id) ~ ' then ' ~ mqsmf_sql_string(entries | map(attribute=1) | join('; '))
    ) %}
{%- endfor %}
{%- set overridden_column = (
    'case rule_id ' ~ overridden_whens | join(' ') ~ ' end' if overridden_whens else 'cast(null as string)'
) %}

with

rules as (
    select * from {{ ref('mp16_rules') }}
),

final as (
    select
        rule_id,
        component,
        object_type,
        smf_source,
        smf_fields,
        severity,
        base_severity,
        condition,
        evaluation_notes,
        comparison,
        {%- for name, column in numeric_parameters %}
            {{ parameter_columns[column] }},
        {%- endfor %}
        escalation_comparison,
        escalation_severity,
        window_unit,
        other_parameters,
        threshold_unit,
        info_threshold_source,
        warning_threshold_source,
        critical_threshold_source,
        escalation_threshold_source,
        threshold_source,
        threshold_basis,
        mp16_reference,
        mp16_sections,
        meaning,
        recommended_action,
        priority,
        evaluation_status,
        required_input,
        is_implemented,
        not_implemented_reason,
        {{ overridden_column }} as overridden_parameters
    from rules
)

select * from final
