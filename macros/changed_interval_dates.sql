{#- For incremental facts: the interval dates that loads since the fact was last built added rows to
    (the loader's smf_load_dates, newer than the newest loaded_at already in the fact: macro
    built_loaded_through_micros). The fact then
    recomputes exactly those dates in full and insert_overwrite replaces their partitions, so a new
    day does not rebuild history and a rerun (or a reload of the same files, which adds no raw rows)
    changes nothing. The dates are the raw tables' partitions (interval_date, which the staging models
    pass on), so the fact's query reads only those partitions of the raw tables. -#}
{% macro changed_interval_dates(relation, date_column='interval_date') -%}
    select distinct changed.interval_date
    from {{ source('smf_raw', 'smf_load_dates') }} as changed
    where changed.rows_added > 0 and unix_micros(changed.loaded_at) > {{ built_loaded_through_micros() }}
{%- endmacro %}

{#- The interval dates changed since the model was last built (changed_interval_dates) as a SQL list
    of date literals, looked up when the model runs ('null' when none, and before execution).
    Literals, not the subquery: Spark prunes partitions with a literal list before planning, where a
    subquery costs a dynamic-pruning pass and a second scan of the fact (a third of the statement's
    time on the queue facts). It prints the list instead of return()ing it: sqlfluff's dbt templater
    loses a return() of a macro called from the same file. -#}
{% macro changed_interval_date_literals(relation) -%}
    {%- set dates = [] -%}
    {%- if execute -%}
        {%- set cache_key = invocation_cache_key('changed_dates') -%}
        {%- if cache_key not in graph -%}
            {%- set found = [] -%}
            {%- for row in run_query(
                'select cast(interval_date as string) from (' ~ changed_interval_dates(relation) ~ ') order by 1'
            ) if row[0] -%}
                {%- do found.append(row[0]) -%}
            {%- endfor -%}
            {%- do graph.update({cache_key: found}) -%}
            {%- do remember_rebuilt_from(found[0] if found else none) -%}
        {%- endif -%}
        {%- do dates.extend(graph[cache_key]) -%}
    {%- endif -%}
    {{- sql_date_literals(dates) -}}
{%- endmacro %}

{#- An incremental fact's input: every row of the relation on a first build or a full refresh, else
    the rows of the interval dates changed since the fact was last built
    (changed_interval_date_literals). -#}
{% macro select_changed_interval_dates(relation) -%}
    select * from {{ relation }}
    {%- if is_incremental() %}
        where interval_date in ({{ changed_interval_date_literals(relation) }})
    {%- endif %}
{%- endmacro %}

{#- For an incremental model whose rows carry state from earlier intervals (runs of consecutive
    intervals, a last known value): the first interval date that loads of raw table `table_name` (or
    of any of a list of them) added rows to since `since` (a SQL timestamp; default: the newest
    loaded_at already in the model, built_loaded_through_micros), as 'YYYY-MM-DD'; none on a first build or full refresh, and when nothing
    changed. A table named in `days_earlier` ({table_name: days}) counts a date as that many days
    earlier (its rows affect results dated before their own date). The model then recomputes every
    date from that one on, carrying each object's state in from its last row before it: a day loaded
    late re-judges the days after it, as a full build would. -#}
{% macro first_changed_interval_date(table_name, since=none, days_earlier={}) -%}
    {%- if not (execute and is_incremental()) -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set table_names = [table_name] if table_name is string else table_name -%}
    {%- set quoted_names = [] -%}
    {%- for name in table_names or [] -%}
        {%- do quoted_names.append(mqsmf_sql_string(name)) -%}
    {%- endfor -%}
    {%- set own_progress = since is none -%}
    {%- set since = since or 'timestamp_micros(' ~ built_loaded_through_micros() ~ ')' -%}
    {%- set changed_date = namespace(sql='changed.interval_date') -%}
    {%- if days_earlier -%}
        {%- set cases = [] -%}
        {%- for earlier_table, days in days_earlier | dictsort -%}
            {%- do cases.append(
                'when ' ~ mqsmf_sql_string(earlier_table) ~ ' then date_sub(changed.interval_date, ' ~ days | int ~ ')'
            ) -%}
        {%- endfor -%}
        {%- set changed_date.sql = 'case changed.table_name ' ~ cases | join(' ')
            ~ ' else changed.interval_date end' -%}
    {%- endif -%}
    {%- set rows = run_query(
        "select cast(min(" ~ changed_date.sql ~ ") as string) from " ~ source('smf_raw', 'smf_load_dates')
        ~ " as changed where changed.rows_added > 0 and changed.loaded_at > " ~ since
        ~ (" and changed.table_name in (" ~ quoted_names | join(', ') ~ ")" if table_names else "")
    ) -%}
    {%- if own_progress -%}
        {%- do remember_rebuilt_from(rows[0][0]) -%}
    {%- endif -%}
    {{ return(rows[0][0]) }}
{%- endmacro %}
