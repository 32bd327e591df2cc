"""End-of-run inference on recorded arrays (layer 5): the Phi summary and its verdicts (``summary``), the
criteria a run must meet (``criteria``), the calibration record reports quote (``calibration_record``), and
the one label and format of each printed number (``wording``, ``fmt``)."""
