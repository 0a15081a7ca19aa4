-- Spans and traces per role: the contract's mcp.app.role, else the OpenInference span kind,
-- else 'other' (the demo's first table). Inputs: none.
-- Grain: one row per role. Reads: main.spans.
SELECT coalesce(mcp_app_role, oi_span_kind, 'other') AS role,
       count(*) AS spans,
       count(DISTINCT trace_id) AS traces
FROM main.spans
GROUP BY ALL
-- role breaks ties: DuckDB keeps no order among equal counts, so the demo's table would vary
ORDER BY spans DESC, role;
