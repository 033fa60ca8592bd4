{#- MP16 rule models that are incremental (insert_overwrite by interval_date) although a date's
    judgement depends on earlier ones: they judge every date from the first one the loads changed,
    reading the queue state carried into it (int_queue_stats__carried_forward), and keep in the
    table's properties how far the loads were judged and with which configuration. A firing that a
    re-judgement no longer finds must not survive, so the dates judged again are dropped first
    (pre-hook mp16_drop_judged_dates), and the properties move on only once the rows are written
    (post-hook mp16_record_judgement): a run that fails leaves the next one to judge those dates.

    The configuration is everything a rule compares with besides the data: the thresholds (seed
    mp16_rules with var mp16_thresholds), the site-configuration seeds and vars, the interval
    alignment. When it changes, the next run judges all history again, as the table models do. -#}

{#- Names of the table properties that keep the judgement's progress (the newest loaded_at judged, in
    epoch microseconds, like built_loaded_through_property: whatever the session time zone). -#}
{% macro mp16_judgement_properties() -%}
    {{ return({'through': 'mqsmf.judged_loaded_through_micros', 'configuration': 'mqsmf.judged_configuration'}) }}
{%- endmacro %}

{#- Vars of the site configuration (macro mp16_site_config's var_name arguments). -#}
{% macro mp16_site_config_vars() -%}
    {{ return([
        'mp16_buffer_pool_roles', 'mp16_cf_structure_config', 'mp16_page_set_config', 'mp16_queue_config',
        'mp16_queue_manager_config', 'mp16_system_config',
    ]) }}
{%- endmacro %}

{#- A digest of the configuration the rules judge with: the rule parameters in force (mp16, from
    mp16_rule_parameters()), the site-configuration vars, the seeds' file checksums. -#}
{% macro mp16_configuration_digest(mp16) -%}
    {%- set parts = [tojson(mp16, sort_keys=true), var('interval_alignment_seconds') | string] -%}
    {%- for name in mp16_site_config_vars() -%}
        {%- do parts.append(name ~ '=' ~ tojson(var(name, []), sort_keys=true)) -%}
    {%- endfor -%}
    {%- for node in graph.nodes.values() | sort(attribute='unique_id')
        if node.resource_type == 'seed' and node.package_name == project_name -%}
        {%- do parts.append(node.name ~ '=' ~ node.checksum.checksum) -%}
    {%- endfor -%}
    {{ return(local_md5(parts | join('\n'))) }}
{%- endmacro %}

{#- The model's table properties as a mapping (empty when the table does not exist). -#}
{% macro mqsmf_table_properties(relation) -%}
    {%- set properties = {} -%}
    {%- if execute and load_relation(relation) is not none -%}
        {%- for row in run_query('show tblproperties ' ~ relation) -%}
            {%- do properties.update({row[0]: row[1]}) -%}
        {%- endfor -%}
    {%- endif -%}
    {{ return(properties) }}
{%- endmacro %}

{#- What each incremental MP16 model judges from, by model name:
      loads: the raw tables whose loads it judges again (smf_load_dates.table_name) and those
        counted days earlier (first_changed_interval_date's days_earlier);
      through: the inputs whose newest loaded_at says how far the loads are judged (together they
        hold rows of every table of `loads`), each with the date column that bounds the read to the
        dates judged (every input is partitioned by it).
    Accounting (SMF 116) records are dated by when they are written, the end of their period: a
    record written after midnight judges the day before too (its period's start, or a statistics
    interval whose middle its period holds). int_smf__qmgr_intervals' tables give Q11 its restart
    phases. A channel initiator's statistics interval just before midnight is judged with its
    system's neighbours of the next day (CHIN10) and the channel accounting ending in it (CHIN02). -#}
{% macro mp16_judgement_inputs(model_name) -%}
    {%- set inputs = {
        'int_mp16__queue_advisories': {
            'loads': {'table_name': 'qqst', 'days_earlier': {}},
            'through': [('int_queue_stats__carried_forward', 'interval_date')],
        },
        'int_mp16__chin_advisories': {
            'loads': {
                'table_name': ['qcct', 'qctadp', 'qctdsp', 'qctssl', 'qctdns', 'qcst'],
                'days_earlier': {'qcct': 1, 'qcst': 1},
            },
            'through': [
                ('fct_channel_initiator_stats', 'interval_date'), ('fct_channel_initiator_task_stats', 'interval_date'),
                ('fct_channel_accounting', 'interval_date'),
            ],
        },
        'int_mp16__shared_queue_cf_usage': {
            'loads': {'table_name': 'qqst', 'days_earlier': {}},
            'through': [('fct_queue_stats', 'interval_date')],
        },
        'int_mp16__page_set_advisories': {
            'loads': {'table_name': 'qis1', 'days_earlier': {}},
            'through': [('stg_smf__qis1', 'interval_date')],
        },
        'int_mp16__accounting_advisories': {
            'loads': {
                'table_name': ['qqst', 'wqst', 'wtas', 'qjst', 'qmst', 'qis1', 'qpst', 'qcct'],
                'days_earlier': {'wqst': 1, 'wtas': 1},
            },
            'through': [
                ('fct_queue_accounting', 'interval_date'), ('fct_task_accounting', 'interval_date'),
                ('int_mp16__class_3_accounting_coverage', 'interval_date'), ('int_smf__qmgr_intervals', 'interval_date'),
            ],
        },
    } -%}
    {%- if model_name not in inputs -%}
        {{ exceptions.raise_compiler_error('mp16_judgement_inputs: no entry for model ' ~ model_name) }}
    {%- endif -%}
    {{ return(inputs[model_name]) }}
{%- endmacro %}

{#- What this run judges: {'all': true} on a first build, a full refresh or a changed configuration;
    else {'all': false, 'first_date': the first interval date the model's loads
    (mp16_judgement_inputs) changed since the last judgement, or none when nothing changed}. Worked
    out once per model and dbt invocation (pre-hook, model and post-hook must agree; the post-hook
    records the new progress last). -#}
{% macro mp16_judgement_scope(mp16) -%}
    {%- if not (execute and is_incremental()) -%}
        {{ return({'all': true}) }}
    {%- endif -%}
    {%- set cache_key = invocation_cache_key('mp16_judgement_scope') -%}
    {%- if cache_key not in graph -%}
        {%- set properties = mqsmf_table_properties(this) -%}
        {%- set names = mp16_judgement_properties() -%}
        {%- set through = properties.get(names['through']) -%}
        {%- if properties.get(names['configuration']) != mp16_configuration_digest(mp16) or not through -%}
            {%- do graph.update({cache_key: {'all': true}}) -%}
        {%- else -%}
            {%- set loads = mp16_judgement_inputs(this.identifier)['loads'] -%}
            {%- do graph.update({cache_key: {'all': false, 'first_date': first_changed_interval_date(
                loads['table_name'], 'timestamp_micros(' ~ through | int ~ ')', loads['days_earlier']
            )}}) -%}
        {%- endif -%}
    {%- endif -%}
    {{ return(graph[cache_key]) }}
{%- endmacro %}

{#- SQL condition on a date column: the dates this run judges (and `days_before` days before them,
    for context that crosses midnight). -#}
{% macro mp16_judged_dates(scope, date_column='interval_date', days_before=0) -%}
    {%- if scope['all'] -%}
        true
    {%- elif scope['first_date'] -%}
        {{ date_column }} >= date_sub(date '{{ scope['first_date'] }}', {{ days_before }})
    {%- else -%}
        false
    {%- endif -%}
{%- endmacro %}

{#- Pre-hook: drop the partitions of the dates this run judges again. -#}
{% macro mp16_drop_judged_dates() -%}
    {%- if execute and is_incremental() -%}
        {%- set scope = mp16_judgement_scope(mp16_rule_parameters()) -%}
        {%- if scope['all'] -%}
            truncate table {{ this }}
        {%- elif scope['first_date'] -%}
            {%- set dropped = [] -%}
            {%- for row in run_query('show partitions ' ~ this) -%}
                {%- set day = row[0].split('=')[1] -%}
                {%- if day >= scope['first_date'] -%}
                    {%- do dropped.append("partition (interval_date = date '" ~ day ~ "')") -%}
                {%- endif -%}
            {%- endfor -%}
            {%- if dropped -%}
                alter table {{ this }} drop if exists {{ dropped | join(', ') }}
            {%- endif -%}
        {%- endif -%}
    {%- endif -%}
{%- endmacro %}

{#- Post-hook: record how far the loads are judged (the newest loaded_at of the model's `through`
    inputs, read in the dates judged: the loads judged now added rows there) and the configuration
    judged with. A run that judged nothing leaves the progress as it was. -#}
{% macro mp16_record_judgement() -%}
    {%- if execute -%}
        {%- set mp16 = mp16_rule_parameters() -%}
        {%- set scope = mp16_judgement_scope(mp16) -%}
        {%- set through = none -%}
        {%- if scope['all'] or scope['first_date'] -%}
            {%- set newest = [] -%}
            {%- for input_name, date_column in mp16_judgement_inputs(this.identifier)['through'] -%}
                {%- do newest.append(
                    'select max(unix_micros(loaded_at)) as loaded_at_micros from ' ~ ref(input_name)
                    ~ ' where ' ~ mp16_judged_dates(scope, date_column)
                ) -%}
            {%- endfor -%}
            {%- set through = run_query(
                'select max(loaded_at_micros) from (' ~ newest | join(' union all ') ~ ')'
            )[0][0] -%}
        {%- endif -%}
        {%- set names = mp16_judgement_properties() %}
        alter table {{ this }} set tblproperties (
            '{{ names['configuration'] }}' = '{{ mp16_configuration_digest(mp16) }}'
        {%- if through %},
            '{{ names['through'] }}' = '{{ through }}'
        {%- endif %}
        )
    {%- endif -%}
{%- endmacro %}
