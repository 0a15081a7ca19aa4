-- Release the pages' temporary table. Grain: none. Reads: nothing.
DROP TABLE IF EXISTS temp.v_pages;
