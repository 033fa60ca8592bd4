{#- Generic test: no two rows share the same values of `combination_of_columns` (a grain check). -#}
{% test unique_combination_of_columns(model, combination_of_columns) %}
    select
        {{ combination_of_columns | join(', ') }},
        count(*) as row_count
    from {{ model }}
    group by {{ combination_of_columns | join(', ') }}
    having count(*) > 1
{% endtest %}
