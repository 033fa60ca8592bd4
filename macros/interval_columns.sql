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

{#- The columns that place a per-queue-manager statistics fact's row in time and in the estate, as
    every such fact lists them after its keys: exact and aligned interval bounds, the LPAR and the
    MQ release that wrote the record. -#}
{% macro qmgr_interval_columns() -%}
    interval_start_at,
        interval_end_at,
        interval_seconds,
        aligned_interval_start_at,
        aligned_interval_end_at,
        system_id,
        mq_version
{%- endmacro %}
