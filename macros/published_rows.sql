{#- A staging model's input: the rows of a raw table whose load is published whole, i.e. has its
    audit rows. The loader moves a load's audit last, after every other table's partitions are
    registered (mqsmf.spark.staging.REVEALED_LAST), so a model never sees a load table by table,
    even while it is being published. changed_dates_only: on an incremental build, only the
    interval dates changed since (changed_interval_date_literals). -#}
{% macro published_rows(relation, changed_dates_only=false) -%}
    select * from {{ relation }}
    where load_id in (select audit.load_id from {{ source('smf_raw', 'smf_load_audit') }} as audit)
    {%- if changed_dates_only and is_incremental() %}
        and interval_date in ({{ changed_interval_date_literals(relation) }})
    {%- endif %}
{%- endmacro %}
