"""Prices (from genai-prices) and billing facts (from our own facts.yaml) for known models.

``facts`` is cheap to import. ``prices`` imports genai-prices lazily, inside its functions.
"""
