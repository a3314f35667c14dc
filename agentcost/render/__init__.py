"""Renderers: a report object -> text (table, JSON, Markdown, CSV, SVG). They format, never add."""
