"""One cycle of the global workspace (layer 4): the integration loop, the workspace and its competition,
the controls (donors and twins), the streams and the seeded generators. No files, no hardware."""
