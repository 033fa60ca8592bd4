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
    {{ return(built_loaded_through()['micros'] if execute else 0) }}
{%- endmacro %}

{#- {'micros': built_loaded_through_micros(), 'recorded': whether the table property holds it}. -#}
{% macro built_loaded_through() -%}
    {%- set cache_key = invocation_cache_key('built_loaded_through') -%}
    {%- if cache_key not in graph -%}
        {%- set recorded = mqsmf_table_properties(this).get(built_loaded_through_property()) -%}
        {%- set micros = recorded if recorded is not none else run_query(
            'select coalesce(max(unix_micros(loaded_at)), 0) from ' ~ this
        )[0][0] -%}
        {%- do graph.update({cache_key: {'micros': micros | int, 'recorded': recorded is not none}}) -%}
    {%- endif -%}
    {{ return(graph[cache_key]) }}
{%- endmacro %}

{#- Keeps, for the post-hook, the first interval date this run rebuilds ('YYYY-MM-DD'; none: none). -#}
{% macro remember_rebuilt_from(first_date) -%}
    {%- do graph.update({invocation_cache_key('rebuilt_from'): first_date}) -%}
{%- endmacro %}

{#- Post-hook of every model (dbt_project.yml): for a model that rebuilt the dates changed since its
    last build, record the newest loaded_at it now holds: the previous one, or a newer one among the
    partitions it rebuilt (the others kept their rows). Nothing for other models, nor when no date
    changed; a run that dies before it leaves the old value, so the next run rebuilds those dates
    again. -#}
{% macro record_built_loaded_through() -%}
    {%- set rebuilt_from = graph.get(invocation_cache_key('rebuilt_from')) if execute else none -%}
    {%- if rebuilt_from -%}
        {%- set before = built_loaded_through() -%}
        {%- set newest = run_query(
            'select coalesce(max(unix_micros(loaded_at)), 0) from ' ~ this
            ~ " where interval_date >= date '" ~ rebuilt_from ~ "'"
        )[0][0] | int -%}
        {%- if newest > before['micros'] or not before['recorded'] %}
            alter table {{ this }} set tblproperties (
                '{{ built_loaded_through_property() }}' = '{{ [newest, before['micros']] | max }}'
            )
        {%- endif -%}
    {%- endif -%}
{%- endmacro %}
