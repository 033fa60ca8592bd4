{#- Seed loading for Spark with the values written as SQL literals. dbt-spark's own version passes
    them as bindings, which its `session` method pastes between quotes unescaped: a text holding an
    apostrophe (the MP16 catalogue is full of them) breaks the INSERT, and an empty cell arrives as
    the string 'None'. Here NULL stays NULL and text is escaped (mp16_sql_literal). Overrides the
    adapter macro for every seed of the project (dbt dispatch prefers the root project's). -#}
{% macro spark__load_csv_rows(model, agate_table) %}
    {%- set column_override = model['config'].get('column_types', {}) -%}
    {%- set data_types = [] -%}
    {%- for column_name in agate_table.column_names -%}
        {%- do data_types.append(column_override.get(column_name, adapter.convert_type(agate_table, loop.index0))) -%}
    {%- endfor -%}
    {%- set statements = [] -%}
    {%- for chunk in agate_table.rows | batch(get_batch_size()) -%}
        {%- set value_rows = [] -%}
        {%- for row in chunk -%}
            {%- set values = [] -%}
            {%- for data_type in data_types -%}
                {%- do values.append('cast(' ~ mp16_sql_literal(row[loop.index0]) ~ ' as ' ~ data_type ~ ')') -%}
            {%- endfor -%}
            {%- do value_rows.append('(' ~ values | join(', ') ~ ')') -%}
        {%- endfor -%}
        {%- set sql = 'insert into ' ~ this.render() ~ ' values\n' ~ value_rows | join(',\n') -%}
        {%- do adapter.add_query(sql, abridge_sql_log=True) -%}
        {%- do statements.append(sql) if loop.first -%}
    {%- endfor -%}
    {{ return(statements[0]) }}
{% endmacro %}
