"""The pipeline's stages, in the order they run."""
