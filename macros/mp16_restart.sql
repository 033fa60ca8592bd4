{#- Whether a row is in its queue manager's restart phase for a rule that MP16 excuses "after a queue
    manager restart" (BP06, DM01, LOG06). The phase of a segment (int_smf__qmgr_segments: the run
    of contiguous intervals that starts after a restart or a gap) is its first interval and every
    following one while both hold:
      - the interval starts less than the rule's restart_window_minutes after the segment started;
      - every interval of the object since the segment started showed the activity the restart
        explains (page set reads, gets from the page set, archive log reads).
    The first interval without that activity ends the phase: later activity is not the restart's.
    `segment_started_at` comes from int_smf__qmgr_segments; `object_partition` lists the object's
    key columns. -#}
{% macro mp16_restart_phase(activity, object_partition, interval_start_at, segment_started_at, mp16, rule_id) -%}
    (
        {{ interval_start_at }} < {{ segment_started_at }}
        + make_dt_interval(0, 0, cast({{ mp16_threshold(mp16, rule_id, 'restart_window_minutes') }} as int), 0)
        and min(cast(coalesce({{ activity }}, false) as int)) over (
            partition by {{ object_partition }}, {{ segment_started_at }} order by {{ interval_start_at }}
            rows between unbounded preceding and current row
        ) = 1
    )
{%- endmacro %}
