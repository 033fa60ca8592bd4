{#- SQL condition: the row's interval_date is one of `dates` (a SQL list of date literals, as
    changed_interval_date_literals prints it), or up to `days_before` days before one of them, or up
    to `days_after` days after one. For incremental models whose rows depend on records dated on the
    other side of midnight; a list of literals, so Spark prunes partitions before planning. -#}
{% macro interval_dates_near(dates, days_before=0, days_after=0) -%}
    {%- set terms = ['interval_date in (' ~ dates ~ ')'] -%}
    {%- for days in range(1, days_before + 1) -%}
        {%- do terms.append('date_add(interval_date, ' ~ days ~ ') in (' ~ dates ~ ')') -%}
    {%- endfor -%}
    {%- for days in range(1, days_after + 1) -%}
        {%- do terms.append('date_sub(interval_date, ' ~ days ~ ') in (' ~ dates ~ ')') -%}
    {%- endfor -%}
    {{- '(' ~ terms | join(' or ') ~ ')' -}}
{%- endmacro %}

{#- A SQL list of date literals for the given dates ('YYYY-MM-DD' texts); 'null' for none, so
    `interval_date in (...)` is false. -#}
{% macro sql_date_literals(days) -%}
    {%- set literals = [] -%}
    {%- for day in days -%}
        {%- do literals.append("date '" ~ day ~ "'") -%}
    {%- endfor -%}
    {{ return(literals | join(', ') if literals else 'null') }}
{%- endmacro %}
