"""Infrastructure under every stage: bounded file reading, YAML with line numbers, git, JSON text,
the disk cache and the generated data modules' writer. Nothing here knows what a scenario is."""
