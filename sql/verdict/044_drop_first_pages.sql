-- Release the first pages' temporary table. Grain: none. Reads: nothing.
DROP TABLE IF EXISTS temp.v_first_pages;
