{#- A timestamp rounded to the nearest multiple of `seconds` since the epoch (default: the
    interval_alignment_seconds var). Queue managers of a QSG end their statistics intervals at about
    the same moment but never at the same microsecond; rounding the interval boundaries puts their
    records for the same interval side by side. Computed on epoch microseconds: time-zone free. -#}
{% macro align_timestamp(timestamp_expression, seconds=none) -%}
    {%- set step = (seconds if seconds is not none else var('interval_alignment_seconds', 60)) | int * 1000000 -%}
    timestamp_micros(cast(round(unix_micros({{ timestamp_expression }}) / {{ step }}) * {{ step }} as bigint))
{%- endmacro %}
