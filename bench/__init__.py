"""valuechain benchmarks: ``python -m bench`` (or ``make bench``)."""
