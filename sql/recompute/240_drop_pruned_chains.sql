-- Prune, last step: release the list of pruned chains. Grain: none. Reads: nothing.
DROP TABLE IF EXISTS temp.pruned_chains;
