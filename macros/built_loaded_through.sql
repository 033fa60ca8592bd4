{#- How far an incremental model has built the loads: the newest loaded_at of its rows, kept in its
    table properties (epoch microseconds, whatever the session time zone) so that finding the dates
    changed since (macro changed_interval_dates) reads no partition of the model: a max(loaded_at)
    over the whole table costs a look at every file, which grows with the years of history. -#}

{#- Name of the table property. -#}
{% macro built_loaded_through_property() -%}
    {{ return('mqsmf.built_loaded_through_micros') }}
{%- endmacro %}

{#- The newest loaded_at the model holds, in epoch microseconds (0 when empty): its table property,
    else (a table built before the property existed) the newest loaded_at of its rows. Read once per
    model and dbt invocation. -#}
{% macro built_loaded_through_micros() -%}
    {%- if not execute -%}
        {{ return(0) }}
    {%- endif -%}
    {%- set cache_key = 'mqsmf_built_loaded_through_' ~ invocation_id ~ '_' ~ this -%}
    {%- if cache_key not in graph -%}
        {%- set recorded = mqsmf_table_properties(this).get(built_loaded_through_property()) -%}
        {%- do graph.update({cache_key ~ '_recorded': recorded is not none}) -%}
        {%- if recorded is none -%}
            {%- set recorded = run_query(
                'select coalesce(max(unix_micros(loaded_at)), 0) from ' ~ this
            )[0][0] -%}
        {%- endif -%}
        {%- do graph.update({cache_key: recorded | int}) -%}
    {%- endif -%}
    {{ return(graph[cache_key]) }}
{%- endmacro %}

{#- Keeps, for the post-hook, the first interval date this run rebuilds ('YYYY-MM-DD'; none: none). -#}
{% macro remember_rebuilt_from(first_date) -%}
    {%- do graph.update({'mqsmf_rebuilt_from_' ~ invocation_id ~ '_' ~ this: first_date}) -%}
{%- endmacro %}

{#- Post-hook of every model (dbt_project.yml): for a model that rebuilt the dates changed since its
    last build, record the newest loaded_at it now holds: the previous one, or a newer one among the
    partitions it rebuilt (the others kept their rows). Nothing for other models, nor when no date
    changed; a run that dies before it leaves the old value, so the next run rebuilds those dates
    again. -#}
{% macro record_built_loaded_through() -%}
    {%- set rebuilt_key = 'mqsmf_rebuilt_from_' ~ invocation_id ~ '_' ~ this -%}
    {%- if execute and graph.get(rebuilt_key) -%}
        {%- set before = built_loaded_through_micros() -%}
        {%- set newest = run_query(
            'select coalesce(max(unix_micros(loaded_at)), 0) from ' ~ this
            ~ " where interval_date >= date '" ~ graph[rebuilt_key] ~ "'"
        )[0][0] | int -%}
        {%- set recorded = graph['mqsmf_built_loaded_through_' ~ invocation_id ~ '_' ~ this ~ '_recorded'] -%}
        {%- if newest > before or not recorded %}
            alter table {{ this }} set tblproperties (
                '{{ built_loaded_through_property() }}' = '{{ [newest, before] | max }}'
            )
        {%- endif -%}
    {%- endif -%}
{%- endmacro %}
