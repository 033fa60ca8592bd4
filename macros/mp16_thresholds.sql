{#- Thresholds of the MP16 advisory rules. They live in the seed mp16_rules (one row per rule); a dbt var
    overrides any of them without editing the seed:

        --vars '{mp16_thresholds: {BP04_warning: 20, CF05_baseline_factor: 3}}'

    Parameter names: info, warning, critical (the levels, compared with the rule's `comparison`),
    escalation, min_volume, window, and the names in the rule's other_parameters ("name=value; ...").
    The advisory models read them when they are compiled, right before they run (dbt build runs the
    seed first), so the compiled SQL shows the numbers in force. -#}

{#- {rule_id: {parameter: value}} for every rule of the seed, with the var overrides applied. Read once
    per dbt invocation (every model and hook calling it runs after the seed, which they all depend
    on) and shared through `graph`, the invocation's one manifest: treat it as read-only; pass it to
    mp16_threshold(). Before execution (parsing, linting) every parameter reads 0 so the SQL still
    renders. -#}
{% macro mp16_rule_parameters() %}
    {%- set seed_relation = ref('mp16_rules') -%}
    {%- set cache_key = invocation_cache_key('mp16_rule_parameters', per_model=false) -%}
    {%- if execute and cache_key in graph -%}
        {{ return(graph[cache_key]) }}
    {%- endif -%}
    {%- set names = {
        'info': 'info_threshold', 'warning': 'warning_threshold', 'critical': 'critical_threshold',
        'escalation': 'escalation_threshold', 'min_volume': 'min_volume', 'window': 'window_length',
    } -%}
    {%- set parameters = {} -%}
    {%- if execute -%}
        {%- set rows = run_query(
            'select rule_id, base_severity, comparison, escalation_comparison, escalation_severity, other_parameters, '
            ~ names.values() | join(', ')
            ~ ' from ' ~ seed_relation
        ) -%}
        {%- for row in rows -%}
            {%- set rule = {
                'base_severity': row['base_severity'], 'comparison': row['comparison'],
                'escalation_comparison': row['escalation_comparison'], 'escalation_severity': row['escalation_severity'],
            } -%}
            {%- for name, column in names.items() -%}
                {%- if row[column] is not none -%}
                    {%- do rule.update({name: row[column] | float}) -%}
                {%- endif -%}
            {%- endfor -%}
            {%- for pair in (row['other_parameters'] or '').split(';') if '=' in pair -%}
                {%- do rule.update({pair.split('=')[0] | trim: pair.split('=')[1] | trim | float}) -%}
            {%- endfor -%}
            {%- do parameters.update({row['rule_id']: rule}) -%}
        {%- endfor -%}
        {%- for key, value in mp16_threshold_overrides().items() -%}
            {%- set rule_id, name = key.split('_', 1) -%}
            {%- if rule_id not in parameters or name not in parameters[rule_id]
                or name in ('base_severity', 'comparison', 'escalation_comparison', 'escalation_severity') -%}
                {{ exceptions.raise_compiler_error(
                    "var mp16_thresholds: '" ~ key ~ "' names no parameter of the seed mp16_rules "
                    ~ "(use <RULE_ID>_<info|warning|critical|escalation|min_volume|window|other parameter>)"
                ) }}
            {%- endif -%}
            {%- do parameters[rule_id].update({name: value | float}) -%}
        {%- endfor -%}
        {%- do graph.update({cache_key: parameters}) -%}
    {%- endif -%}
    {{ return(parameters) }}
{% endmacro %}

{#- The var mp16_thresholds as a flat {RULE_parameter: value} mapping (nested {RULE: {parameter: value}}
    is accepted too). -#}
{% macro mp16_threshold_overrides() %}
    {%- set given = var('mp16_thresholds', {}) -%}
    {%- set flat = {} -%}
    {%- for key, value in (given if given is mapping else {}).items() -%}
        {%- set rule_id, name = (key ~ '_').split('_', 1) -%}
        {%- set nested = value if value is mapping else {name.rstrip('_'): value} -%}
        {%- for inner_name, inner_value in nested.items() -%}
            {%- do flat.update({rule_id | upper ~ '_' ~ inner_name: inner_value}) -%}
        {%- endfor -%}
    {%- endfor -%}
    {{ return(flat) }}
{% endmacro %}

{#- One parameter of one rule as a SQL number. A parameter the seed leaves empty is an error: the
    model asked for a threshold the catalogue does not define. -#}
{% macro mp16_threshold(parameters, rule_id, name) -%}
    {%- if not execute -%}
        0
    {%- elif name not in parameters.get(rule_id, {}) -%}
        {{ exceptions.raise_compiler_error(
            "mp16_threshold: the seed mp16_rules defines no '" ~ name ~ "' for rule " ~ rule_id
        ) }}
    {%- else -%}
        {{ parameters[rule_id][name] }}
    {%- endif -%}
{%- endmacro %}

{#- `observed` crosses the rule's threshold of `level` (info, warning, critical or escalation), with
    the rule's comparison (escalation_comparison for the escalation). -#}
{% macro mp16_crosses(parameters, rule_id, level, observed) -%}
    {%- set rule = parameters.get(rule_id, {}) if execute else {} -%}
    {%- set operator = rule.get('escalation_comparison' if level == 'escalation' else 'comparison') or '>' -%}
    {{ observed }} {{ operator }} {{ mp16_threshold(parameters, rule_id, level) }}
{%- endmacro %}

{#- A text attribute of a rule from the seed (base_severity, escalation_severity ...) as a SQL string. -#}
{% macro mp16_rule_text(parameters, rule_id, name) -%}
    {%- if not execute -%}
        'info'
    {%- elif not parameters.get(rule_id, {}).get(name) -%}
        {{ exceptions.raise_compiler_error("mp16_rule_text: the seed mp16_rules has no " ~ name ~ " for rule " ~ rule_id) }}
    {%- else -%}
        '{{ parameters[rule_id][name] }}'
    {%- endif -%}
{%- endmacro %}

{#- The severity a rule's observed value reaches: the most severe level (critical, warning, info)
    whose threshold it crosses, with the rule's comparison; NULL when none. Levels the seed leaves
    empty are not part of the rule. -#}
{% macro mp16_severity(parameters, rule_id, observed) -%}
    {%- set rule = parameters.get(rule_id, {}) if execute else {'comparison': '>', 'warning': 0} -%}
    case
    {%- for level in ['critical', 'warning', 'info'] if level in rule %}
        when {{ observed }} {{ rule['comparison'] }} {{ rule[level] }} then '{{ level }}'
    {%- endfor %}
    end
{%- endmacro %}

{#- The threshold of the level a severity expression names (from mp16_severity). -#}
{% macro mp16_severity_threshold(parameters, rule_id, severity) -%}
    {%- set rule = parameters.get(rule_id, {}) if execute else {'warning': 0} -%}
    case {{ severity }}
    {%- for level in ['critical', 'warning', 'info'] if level in rule %}
        when '{{ level }}' then {{ rule[level] }}
    {%- endfor %}
    end
{%- endmacro %}

{#- One severity lower (critical -> warning -> info -> NULL): buffer pools of role UNKNOWN for rules
    meant for SYS and SHORT pools (roles: MP16 "Buffer pool usage" (ch. 1, p. 19)). -#}
{% macro mp16_lower_severity(severity) -%}
    case {{ severity }} when 'critical' then 'warning' when 'warning' then 'info' end
{%- endmacro %}

{#- Severity of a rule meant for SYS and SHORT buffer pools (roles: MP16 "Buffer pool usage" (ch. 1,
    p. 19)): as the level on those, one lower on UNKNOWN pools, none on LONG and OTHER pools. -#}
{% macro mp16_short_lived_severity(role, level) -%}
    case
        when {{ role }} in ('SYS', 'SHORT') then {{ level }}
        when {{ role }} = 'UNKNOWN' then {{ mp16_lower_severity(level) }}
    end
{%- endmacro %}

{#- One candidate firing of a rule on the current row, as a struct for
    `lateral view explode(array(mp16_firing(...), ...))`: the advisory models compute every rule
    from one pass over their statistics; mp16_fired_rows keeps the structs whose severity is not NULL. All
    arguments are SQL expressions; `window` is the evaluation window's name; `comparison` is the
    comparison the firing applied where it is not the rule's (a proxy metric), else NULL. The
    observation is formatted only for a firing (mp16_fired_rows drops the others). -#}
{% macro mp16_firing(
    rule_id, severity, threshold_level, observed, threshold, observation, window="'interval'", comparison='null'
) -%}
    named_struct(
        'rule_id', '{{ rule_id }}',
        'severity', cast({{ severity }} as string),
        'threshold_level', cast({{ threshold_level }} as string),
        'evaluation_window', cast({{ window }} as string),
        'observed_value', cast({{ observed }} as double),
        'threshold_value', cast({{ threshold }} as double),
        'observation', cast(case when {{ severity }} is not null then {{ observation }} end as string),
        'applied_comparison', cast({{ comparison }} as string)
    )
{%- endmacro %}

{#- mp16_firing for the common case: the rule's level column is `<rule id in lower case>_level`
    (computed with mp16_severity) and the threshold reported is that level's threshold of the rule. -#}
{% macro mp16_rule_firing(
    parameters, rule_id, observed, observation, window="'interval'", comparison='null'
) -%}
    {%- set level = rule_id | lower ~ '_level' -%}
    {{ mp16_firing(
        rule_id, level, level, observed, mp16_severity_threshold(parameters, rule_id, level), observation,
        window, comparison
    ) }}
{%- endmacro %}

{#- The advisory rows of a relation's candidate firings (the caller's comma-separated mp16_firing
    calls): each row's firings exploded, with the object and interval every int_mp16__* model
    returns. `object_name` is a SQL expression over the relation, aliased `levels`;
    `interval_start_at` / `interval_end_at` name its columns that bound the judged interval;
    `date_column`, when given, is passed on (the partition of an incremental model). -#}
{% macro mp16_fired_rows(
    relation, object_type, object_name, interval_start_at='interval_start_at', interval_end_at='interval_end_at',
    date_column=none
) -%}
    select
        firing.rule_id,
        firing.severity,
        firing.threshold_level,
        levels.qmgr_name,
        levels.qsg_name,
        '{{ object_type }}' as object_type,
        {{ object_name }} as object_name,
        levels.{{ interval_start_at }} as interval_start_at,
        levels.{{ interval_end_at }} as interval_end_at,
        firing.evaluation_window,
        firing.observed_value,
        firing.threshold_value,
        firing.observation,
        firing.applied_comparison
    {%- if date_column %},
        levels.{{ date_column }}
    {%- endif %}
    from {{ relation }} as levels
        lateral view explode(filter(array(
            {{ caller() }}
        ), candidate -> candidate.severity is not null)) firings as firing
{%- endmacro %}
