"""Infrastructure under every stage: bounded file reading, YAML with line numbers, git, JSON text and
the disk cache. Nothing here knows what a scenario is."""
