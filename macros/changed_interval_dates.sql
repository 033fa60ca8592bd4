{#- For incremental facts: the interval dates that loads since the fact was last built added rows to
    (the loader's smf_load_dates, newer than the newest loaded_at already in the fact). The fact then
    recomputes exactly those dates in full and insert_overwrite replaces their partitions, so a new
    day does not rebuild history and a rerun (or a reload of the same files, which adds no raw rows)
    changes nothing. The dates are the raw tables' partitions (interval_date, which the staging models
    pass on), so the fact's query reads only those partitions of the raw tables. -#}
{% macro changed_interval_dates(relation, date_column='interval_date') -%}
    select distinct changed.interval_date
    from {{ source('smf_raw', 'smf_load_dates') }} as changed
    where changed.rows_added > 0 and changed.loaded_at > (
        select coalesce(max(built.loaded_at), timestamp '1900-01-01 00:00:00') from {{ this }} as built
    )
{%- endmacro %}

{#- An incremental fact's input: every row of the relation on a first build or a full refresh, else
    the rows of the interval dates changed since the fact was last built (changed_interval_dates). -#}
{% macro select_changed_interval_dates(relation) -%}
    select * from {{ relation }}
    {%- if is_incremental() %}
        where interval_date in ({{ changed_interval_dates(relation) }})
    {%- endif %}
{%- endmacro %}
