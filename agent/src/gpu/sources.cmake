# Filled in by the GPU backend.
