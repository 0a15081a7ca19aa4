-- A string as `JSON.stringify` writes it (CONTRACT §0.2 trap 3, §5.2 model sort key): DuckDB's
-- JSON writer escapes the same characters, but spells \u00XX escapes in upper case.
-- Grain: none. Reads: nothing.
CREATE OR REPLACE MACRO core.js_json_string(s) AS
    replace(replace(replace(replace(replace(replace(replace(replace(replace(
        CAST(to_json(CAST(s AS VARCHAR)) AS VARCHAR),
        '\u000B', '\u000b'), '\u000E', '\u000e'), '\u000F', '\u000f'),
        '\u001A', '\u001a'), '\u001B', '\u001b'), '\u001C', '\u001c'),
        '\u001D', '\u001d'), '\u001E', '\u001e'), '\u001F', '\u001f');
