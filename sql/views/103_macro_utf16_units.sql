-- A string as its UTF-16 code units: lists compare element by element, so ordering by this
-- key is JavaScript's plain string comparison (CONTRACT §5.2, Q8); UTF-8 byte order differs
-- for characters above U+FFFF against U+E000–U+FFFF.
-- Grain: none. Reads: nothing.
CREATE OR REPLACE MACRO core.utf16_units(s) AS
    CASE WHEN s = '' THEN CAST([] AS INTEGER[]) ELSE flatten(list_transform(
        string_split(s, ''),
        lambda c: CASE
            WHEN unicode(c) < 65536 THEN [unicode(c)]
            ELSE [55296 + ((unicode(c) - 65536) >> 10), 56320 + ((unicode(c) - 65536) & 1023)]
        END
    )) END;
