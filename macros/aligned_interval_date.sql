{#- The UTC date of an aligned interval, identified by its (aligned) end: the date of the last
    microsecond inside it, so the interval ending at midnight belongs to the day it covers. -#}
{% macro aligned_interval_date(aligned_end_expression) -%}
    {{ utc_date('timestamp_micros(unix_micros(' ~ aligned_end_expression ~ ') - 1)') }}
{%- endmacro %}
