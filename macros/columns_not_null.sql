{#- Generic test: none of `column_names` is NULL in any row. One query for a model's whole column
    contract instead of one not_null test (one Spark job) per column. -#}
{% test columns_not_null(model, column_names) %}
    select *
    from {{ model }}
    where {{ column_names | join(' is null or ') }} is null
{% endtest %}
