"""The prices stage: a model name and a date -> ``ModelPrices`` (genai-prices, or a ``--prices`` file),
each rate with where it came from. genai-prices is imported lazily, inside functions."""
