{#- A site configuration seed unioned with the rows of a dbt var, as one relation with a
    `from_var` flag (true for var rows, which win over seed rows of the same specificity). The var
    is a list of mappings with (some of) the seed's columns, e.g.

        --vars '{mp16_buffer_pool_roles: [{qmgr_name: QM01, buffer_pool_id: 1, role: SHORT}]}'

    `columns` maps each column to its Spark type; columns a var row leaves out are NULL. -#}
{% macro mp16_site_config(seed_name, var_name, columns) -%}
    {%- set rows = var(var_name, []) -%}
    {%- set rows = [] if rows is string or rows is mapping else rows -%}
    {%- for row in rows -%}
        {%- if row is not mapping -%}
            {{ exceptions.raise_compiler_error("var " ~ var_name ~ ": every entry must be a mapping, got " ~ row) }}
        {%- endif -%}
        {%- for key in row if key not in columns -%}
            {{ exceptions.raise_compiler_error(
                "var " ~ var_name ~ ": unknown column '" ~ key ~ "' (columns: " ~ columns.keys() | join(', ') ~ ")"
            ) }}
        {%- endfor -%}
    {%- endfor -%}
    select
    {%- for column, data_type in columns.items() %}
        cast({{ column }} as {{ data_type }}) as {{ column }},
    {%- endfor %}
        false as from_var
    from {{ ref(seed_name) }}
    union all
    select
    {%- for column, data_type in columns.items() %}
        cast({{ column }} as {{ data_type }}) as {{ column }},
    {%- endfor %}
        true as from_var
    {#- The var rows, plus one all-NULL row so the VALUES list is never empty (filtered out). #}
    from values
    {%- for row in rows %}
        ({% for column in columns %}{{ mp16_sql_literal(row.get(column)) }}, {% endfor %}true),
    {%- endfor %}
        ({% for column in columns %}null, {% endfor %}false) as var_rows ({{ columns.keys() | join(', ') }}, is_var_row)
    where is_var_row
{%- endmacro %}

{#- A value as a SQL literal: NULL, or a string literal (the reader casts it). -#}
{% macro mp16_sql_literal(value) -%}
    {{ 'null' if value is none else mqsmf_sql_string(value) }}
{%- endmacro %}

{#- Each subject's settings resolved from a site configuration relation (mp16_site_config): a row
    applies to a subject where each of its `keys` ((subject column, configuration column) pairs)
    names the subject's value or is '*'. Per setting the most specific row that sets it wins: a
    row naming an earlier key outweighs any naming only later ones, then a var row a seed row.
    One row per `group_by` of the subjects, with `rows_column` counting the rows that apply. -#}
{% macro mp16_resolved_settings(subjects, group_by, config, keys, settings, rows_column) -%}
    select
    {%- for column in group_by %}
        {{ subjects }}.{{ column }},
    {%- endfor %}
    {%- for setting in settings %}
            max_by(matches.{{ setting }}, case when matches.{{ setting }} is not null then matches.precedence end)
                as {{ setting }},
    {%- endfor %}
        count(matches.precedence) as {{ rows_column }}
    from {{ subjects }}
    left join (
        select
    {%- for column in group_by %}
        {{ subjects }}.{{ column }},
    {%- endfor %}
    {%- for setting in settings %}
        {{ config }}.{{ setting }},
    {%- endfor %}
    {%- for subject_column, config_column in keys %}
                (case when {{ config }}.{{ config_column }} != '*' then {{ 2 ** (keys | length - loop.index + 1) }} else 0 end) +
    {%- endfor %}
            (case when {{ config }}.from_var then 1 else 0 end) as precedence
        from {{ subjects }}
        inner join {{ config }}
            on
    {%- for subject_column, config_column in keys %}
        {{ 'and ' if not loop.first }}(
                    {{ subjects }}.{{ subject_column }} = {{ config }}.{{ config_column }}
                    or {{ config }}.{{ config_column }} = '*'
                )
    {%- endfor %}
    ) as matches
        on
    {%- for column in group_by %}
        {{ 'and ' if not loop.first }}{{ subjects }}.{{ column }} = matches.{{ column }}
    {%- endfor %}
    group by
    {%- for column in group_by %}
        {{ subjects }}.{{ column }}{{ ',' if not loop.last }}
    {%- endfor %}
{%- endmacro %}
