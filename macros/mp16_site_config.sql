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
