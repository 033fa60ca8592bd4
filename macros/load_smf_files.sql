{#- on-run-start hook (dbt_project.yml): land the SMF dumps named by var('smf_paths') in the raw
    tables, and make sure every raw table exists even when there is nothing to load.
    The statements come from the mqsmf data source (structure '_load_sql'), which writes them with
    mqsmf.spark.load.load_plan: the very statements `mqsmf load` runs. -#}
{% macro load_smf_files() %}
    {%- if execute -%}
        {%- set paths = var('smf_paths', []) -%}
        {%- if paths is string -%}
            {%- set paths = [paths] if paths else [] -%}
        {%- endif -%}
        {%- set plan_view = 'mqsmf_load_plan' -%}
        {%- set plan_options = {
            'structure': '_load_sql',
            'paths': tojson(paths),
            'framing': var('smf_framing', 'auto'),
            'raw_schema': var('raw_schema', 'smf_raw'),
            'load_id': invocation_id,
        } -%}
        {%- set option_list = [] -%}
        {%- for key, value in plan_options.items() -%}
            {%- do option_list.append(key ~ ' ' ~ mqsmf_sql_string(value)) -%}
        {%- endfor -%}
        {%- do run_query(
            'create or replace temporary view ' ~ plan_view
            ~ ' using mqsmf options (' ~ option_list | join(', ') ~ ')'
        ) -%}
        {%- set plan = run_query('select step, label, statement from ' ~ plan_view ~ ' order by step') -%}
        {%- set total = plan.rows | length -%}
        {%- if paths -%}
            {%- do log('mqsmf: loading ' ~ paths | join(', ') ~ ' (load ' ~ invocation_id ~ ')', info=true) -%}
        {%- endif -%}
        {%- for step, label, statement in plan.rows -%}
            {%- do log('mqsmf: [' ~ step ~ '/' ~ total ~ '] ' ~ label, info=label.startswith(('decode', 'load'))) -%}
            {%- do run_query(statement) -%}
        {%- endfor -%}
        {%- do run_query('drop view if exists ' ~ plan_view) -%}
    {%- endif -%}
{% endmacro %}
