"""One run's life in its directory (layer 7): the build (``build``), the session and its runner, the
run-directory layout and state (``rundir``, ``runfiles``), provenance and progress."""
