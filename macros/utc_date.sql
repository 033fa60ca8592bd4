{#- The UTC calendar date of a timestamp, computed from epoch microseconds so the result does not
    depend on the Spark session time zone (to_date() would use it). -#}
{% macro utc_date(timestamp_expression) -%}
    date_from_unix_date(cast(floor(unix_micros({{ timestamp_expression }}) / 86400000000) as int))
{%- endmacro %}
