{#- A Spark SQL string literal holding `value` exactly (backslash and quote escaped). -#}
{% macro mqsmf_sql_string(value) -%}
    '{{ value | string | replace("\\", "\\\\") | replace("'", "\\'") }}'
{%- endmacro %}
