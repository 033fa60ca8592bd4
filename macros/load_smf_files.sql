{#- on-run-start hook (dbt_project.yml): land the SMF dumps named by var('smf_paths') in the raw
    tables. As the hook (only_when_paths=true) it does nothing at all when smf_paths is empty, so a
    scheduler that loads once (mqsmf load) and then runs dbt several times does not load again;
    `dbt run-operation load_smf_files` also makes sure every raw table exists when nothing is loaded.
    The statements come from the mqsmf data source (structure '_load_sql'), which writes them with
    mqsmf.spark.plan.load_plan: the very statements `mqsmf load` runs. A step of kind 'expand' is a
    query whose rows are more statements (those that complete a publication: registering the
    new partitions), run in its place. The plan holds the warehouse's load lock (mqsmf.load_lock)
    from its read to its last step: a second load waits for it (var('smf_load_wait'): until its
    'until', seconds since the epoch, a wait of 'seconds' from its start; else for
    $MQSMF_LOAD_WAIT_SECONDS on the Spark side), or fails naming it. -#}
{% macro load_smf_files(only_when_paths=false) %}
    {%- set paths = var('smf_paths', []) -%}
    {%- if paths is string -%}
        {%- set paths = [paths] if paths else [] -%}
    {%- endif -%}
    {%- if execute and (paths or not only_when_paths) -%}
        {%- set plan_view = 'mqsmf_load_plan' -%}
        {%- set wait = var('smf_load_wait', {}) -%}
        {%- set plan_options = {
            'structure': '_load_sql',
            'paths': tojson(paths),
            'framing': var('smf_framing', 'auto'),
            'raw_schema': var('raw_schema', 'smf_raw'),
            'load_id': invocation_id,
            'warehouse': '${spark.sql.warehouse.dir}',
            'wait_until': wait.get('until', ''),
            'wait_seconds': wait.get('seconds', ''),
        } -%}
        {%- set option_list = [] -%}
        {%- for key, value in plan_options.items() -%}
            {%- do option_list.append(key ~ ' ' ~ mqsmf_sql_string(value)) -%}
        {%- endfor -%}
        {%- do run_query(
            'create or replace temporary view ' ~ plan_view
            ~ ' using mqsmf options (' ~ option_list | join(', ') ~ ')'
        ) -%}
        {%- set plan = run_query('select step, label, statement, kind from ' ~ plan_view ~ ' order by step') -%}
        {%- if plan.rows and plan.rows[0][3] == 'busy' -%}
            {#- another load held the lock until this load's wait ended: its message, as the error -#}
            {%- do exceptions.raise_compiler_error(plan.rows[0][2]) -%}
        {%- endif -%}
        {%- set total = plan.rows | length -%}
        {%- if paths -%}
            {%- do log('mqsmf: loading ' ~ paths | join(', ') ~ ' (load ' ~ invocation_id ~ ')', info=true) -%}
        {%- endif -%}
        {%- for step, label, statement, kind in plan.rows -%}
            {%- set loud = label.startswith(('decode', 'stage', 'publish')) -%}
            {%- do log('mqsmf: [' ~ step ~ '/' ~ total ~ '] ' ~ label, info=loud) -%}
            {%- set result = run_query(statement) -%}
            {%- if kind == 'expand' -%}
                {%- for label2, statement2 in result.rows -%}
                    {%- do log('mqsmf:   ' ~ label2, info=label2.startswith('publish')) -%}
                    {%- do run_query(statement2) -%}
                {%- endfor -%}
            {%- endif -%}
        {%- endfor -%}
        {%- do run_query('drop view if exists ' ~ plan_view) -%}
    {%- endif -%}
{% endmacro %}
