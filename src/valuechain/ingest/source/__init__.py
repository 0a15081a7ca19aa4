"""The source shell: options, accounting, parts, merging, streaming and reading export files."""
