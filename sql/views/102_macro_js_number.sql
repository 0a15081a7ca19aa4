-- A finite double as `JSON.stringify` writes it: integral values without a fraction (below
-- 1e21), otherwise the shortest round-trip digits with a JS-style exponent (`1e-7`, `1e+21`).
-- Grain: none. Reads: nothing.
CREATE OR REPLACE MACRO core.js_number(x) AS
    CASE
        WHEN x = trunc(x) AND abs(x) < 1e21 THEN CAST(CAST(x AS HUGEINT) AS VARCHAR)
        ELSE regexp_replace(CAST(CAST(x AS DOUBLE) AS VARCHAR), 'e([+-])0*([0-9])', 'e\1\2')
    END;
