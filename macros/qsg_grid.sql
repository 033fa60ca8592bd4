{#- The interval grid of the QSG roll-ups (README "QSG roll-ups: interval grid and coverage"): slots of
    var('qsg_grid_seconds') (default 1800, MQ's default STATIME) from the epoch, so from UTC midnight.
    A member's (aligned) interval [start, end) is cut at the slot boundaries it crosses; each piece
    carries its slot and the seconds it overlaps it. Times are epoch seconds (bigint). -#}
{% macro qsg_grid_seconds() -%}
    {{ var('qsg_grid_seconds', 1800) | int }}
{%- endmacro %}

{#- The start of every slot an interval overlaps, one row each:
    `select t.*, {{ qsg_grid_slots(...) }} as slot_start_s`. -#}
{% macro qsg_grid_slots(start_seconds, end_seconds) -%}
    {%- set grid = qsg_grid_seconds() -%}
    explode(sequence(cast(floor({{ start_seconds }} / {{ grid }}) * {{ grid }} as bigint), cast(floor(({{ end_seconds }} - 1) / {{ grid }}) * {{ grid }} as bigint), cast({{ grid }} as bigint)))
{%- endmacro %}

{#- Seconds of [start, end) inside the slot that starts at slot_start. -#}
{% macro qsg_grid_overlap_seconds(start_seconds, end_seconds, slot_start) -%}
    (least({{ end_seconds }}, {{ slot_start }} + {{ qsg_grid_seconds() }}) - greatest({{ start_seconds }}, {{ slot_start }}))
{%- endmacro %}
