{#- The rows a data test checks. dbt wraps a test's model in this macro; a test whose config says
    `where: recently_loaded_dates` checks only the interval dates the newest var('test_recent_loads')
    loads added rows to (what a daily run just changed), so a test on a large table costs a day's
    data, not all history; the gate (`mqsmf check`) checks every load since its last run. Set var
    test_scope to 'all' for a sweep of every date (like the gate's --all); any other `where` is
    applied as dbt does. -#}
{% macro get_where_subquery(relation) -%}
    {%- set where = config.get('where', '') -%}
    {%- if where == 'recently_loaded_dates' -%}
        {%- set where = recently_loaded_dates_condition() -%}
    {%- endif -%}
    {%- if where -%}
        {{ return('(select * from ' ~ relation ~ ' where ' ~ where ~ ') dbt_subquery') }}
    {%- endif -%}
    {{ return(relation) }}
{%- endmacro %}

{#- SQL condition on interval_date: the dates the newest var('test_recent_loads') loads added rows to
    (literal dates, so Spark prunes partitions), or true with var test_scope 'all'. -#}
{% macro recently_loaded_dates_condition() -%}
    {%- if var('test_scope') == 'all' or not execute -%}
        {{ return('true') }}
    {%- endif -%}
    {#- Looked up once per dbt invocation, by the first test that needs it (after the on-run-start
        load): `graph` is the invocation's one manifest graph, shared by every node. -#}
    {%- set cache_key = invocation_cache_key('recently_loaded_dates', per_model=false) -%}
    {%- if cache_key not in graph -%}
        {%- set load_dates = source('smf_raw', 'smf_load_dates') -%}
        {%- set rows = run_query(
            'select distinct cast(interval_date as string) from ' ~ load_dates
            ~ ' where rows_added > 0 and load_id in (select load_id from ' ~ load_dates
            ~ ' group by load_id order by max(loaded_at) desc limit ' ~ var('test_recent_loads') | int
            ~ ') order by 1'
        ) -%}
        {%- set dates = [] -%}
        {%- for row in rows if row[0] -%}
            {%- do dates.append(row[0]) -%}
        {%- endfor -%}
        {%- do graph.update({cache_key: 'interval_date in (' ~ sql_date_literals(dates) ~ ')'}) -%}
    {%- endif -%}
    {{ return(graph[cache_key]) }}
{%- endmacro %}
