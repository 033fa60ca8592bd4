{#- For incremental facts: the interval dates that rows loaded since the fact was last built touch
    (rows of `relation` with loaded_at later than the newest loaded_at already in the fact). The fact
    then recomputes exactly those dates in full and insert_overwrite replaces their partitions, so a
    new interval does not rebuild history and a rerun (or a reload of the same files, which adds no
    raw rows) changes nothing. -#}
{% macro changed_interval_dates(relation, date_column='interval_date') -%}
    select distinct changed.{{ date_column }}
    from {{ relation }} as changed
    where changed.loaded_at > (
        select coalesce(max(built.loaded_at), timestamp '1900-01-01 00:00:00') from {{ this }} as built
    )
{%- endmacro %}
