"""The description of a run (layer 4): frozen, validated settings (``settings``: ``Config``, ``load_config``)
and the schema machinery every field goes through (``schema``: bounds, tags, YAML reading, diffs)."""
