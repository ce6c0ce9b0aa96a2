# Filled in by the core library.
