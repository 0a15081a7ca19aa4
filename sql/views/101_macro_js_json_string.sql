-- A string as `JSON.stringify` writes it (CONTRACT §0.2 trap 3; the model slice sort key of
-- §5.2): `"` and `\` escaped, control characters as \b \t \n \f \r or lower-case \u00xx,
-- everything else (non-ASCII, U+2028, DEL) raw. DuckDB's JSON writer escapes the same
-- characters but spells \u00XX in upper case; for the rare string with a control character
-- its escaped backslashes are parked on U+0001 (which the writer never leaves raw) while the
-- genuine \u00XX escapes are lower-cased.
-- Grain: none. Reads: nothing.
CREATE OR REPLACE MACRO core.js_json_string(s) AS
    CASE
        WHEN NOT regexp_matches(s, '[\x00-\x1f]')
            THEN '"' || replace(replace(s, '\', '\\'), '"', '\"') || '"'
        ELSE replace(
            replace(replace(replace(replace(replace(replace(replace(replace(replace(
                replace(CAST(to_json(CAST(s AS VARCHAR)) AS VARCHAR), '\\', chr(1)),
                '\u000B', '\u000b'), '\u000E', '\u000e'), '\u000F', '\u000f'),
                '\u001A', '\u001a'), '\u001B', '\u001b'), '\u001C', '\u001c'),
                '\u001D', '\u001d'), '\u001E', '\u001e'), '\u001F', '\u001f'),
            chr(1), '\\')
    END;
