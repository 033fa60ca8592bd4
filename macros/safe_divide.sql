{#- numerator / denominator as a double, NULL when the denominator is 0 or NULL. Spark runs dbt
    sessions with ANSI mode off, so this also keeps decimal counters from overflowing a division. -#}
{% macro safe_divide(numerator, denominator) -%}
    cast({{ numerator }} as double) / nullif(cast({{ denominator }} as double), 0)
{%- endmacro %}
