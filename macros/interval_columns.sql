{#- The interval columns every per-queue-manager statistics row carries, from a staging relation
    alias: exact start/end (UTC) and length, the aligned boundaries used to put queue managers of a
    QSG side by side, and the UTC date the facts are partitioned by: the raw tables' partition
    (the date of interval_start_at), passed on by the staging models, so a filter on it prunes them. -#}
{% macro interval_columns(relation_alias) -%}
    {{ relation_alias }}.interval_start_at,
    {{ relation_alias }}.interval_end_at,
    {{ relation_alias }}.interval_seconds,
    {{ align_timestamp(relation_alias ~ '.interval_start_at') }} as aligned_interval_start_at,
    {{ align_timestamp(relation_alias ~ '.interval_end_at') }} as aligned_interval_end_at,
    {{ relation_alias }}.interval_date
{%- endmacro %}
